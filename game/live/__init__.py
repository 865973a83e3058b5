"""Everything that touches a socket: the consumer (consumers), the socket registry and
presence (presence), websocket tuning (transport), the URL routes (routing) and pushes from
synchronous code (sender). Sockets call the services; the services push through sender."""
