"""The accounts app: users (accounts.models.User, usernames that cannot pass for another),
sign-up and log-in with throttling (forms, throttle), profiles and the language choice
(middleware), and API tokens for programs (tokens, token_auth; their pages in views/)."""
