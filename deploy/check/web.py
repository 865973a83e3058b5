"""A person's browser, reduced to what the deploy check needs: HTTPS to the edge under the
test name (the test CA trusted, SNI and Host the public name, the TCP connection to the
edge's address), a cookie jar, and forms posted with Django's CSRF token."""

from __future__ import annotations

import http.client
import re
import socket
import ssl
import urllib.parse
from dataclasses import dataclass, field
from http.cookies import SimpleCookie

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: str

    def header(self, name: str) -> str:
        return self.headers.get(name, "")


def tls_context(ca_file: str) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=ca_file)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


class EdgeConnection(http.client.HTTPSConnection):
    """HTTPS to `address` while the certificate is checked for the public name."""

    def __init__(self, name: str, address: str, context: ssl.SSLContext, timeout: float) -> None:
        super().__init__(name, 443, context=context, timeout=timeout)
        self.address, self.tls = address, context

    def connect(self) -> None:
        raw = socket.create_connection((self.address, 443), self.timeout)
        self.sock = self.tls.wrap_socket(raw, server_hostname=self.host)


@dataclass
class Browser:
    name: str  # the site's public name, e.g. dobon.test
    address: str  # the edge's address
    context: ssl.SSLContext
    cookies: dict[str, str] = field(default_factory=dict)
    timeout: float = 20.0

    @property
    def origin(self) -> str:
        return f"https://{self.name}"

    def request(self, method: str, path: str, body: dict[str, str] | None = None,
                headers: dict[str, str] | None = None) -> Answer:
        connection = EdgeConnection(self.name, self.address, self.context, self.timeout)
        try:
            sent = {"Host": self.name, "User-Agent": "dobon-deploy-check", **(headers or {})}
            if self.cookies:
                sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            data = None
            if body is not None:
                data = urllib.parse.urlencode(body).encode()
                sent["Content-Type"] = "application/x-www-form-urlencoded"
                sent["Referer"] = f"{self.origin}{path}"  # Django's CSRF check over HTTPS
                sent["Origin"] = self.origin
            connection.request(method, path, body=data, headers=sent)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            for value in response.headers.get_all("Set-Cookie") or []:
                jar: SimpleCookie = SimpleCookie()
                jar.load(value)
                for key, morsel in jar.items():
                    self.cookies[key] = morsel.value
            return Answer(response.status, response.headers, text)
        finally:
            connection.close()

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post_form(self, path: str, fields: dict[str, str], form_page: str | None = None) -> Answer:
        """GET the page with the form (for its CSRF token), then POST the fields to
        `path` as a browser would."""
        page = self.get(form_page or path)
        match = CSRF_INPUT.search(page.body)
        if match is None:
            raise AssertionError(f"no CSRF token on {form_page or path} ({page.status})")
        return self.request("POST", path, {"csrfmiddlewaretoken": match.group(1), **fields})

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())
