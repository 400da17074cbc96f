"""Requests no view should ever see, the Content-Security-Policy every response carries, and the request id
every log line of a request carries."""

from __future__ import annotations

import re
import uuid

from csp.middleware import CSPMiddleware, PolicyParts
from django.core.signals import request_finished
from django.http import Http404

from config import logs

REQUEST_ID_HEADER = "X-Request-ID"
# A proxy's id is kept when it looks like one (a UUID, a hex or base64 token, dashes, dots): never a value
# that could break a log line or a header.
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+/=-]{0,127}")


class RequestId:
    """Takes the request's ``X-Request-ID`` when it is sane (the reverse proxy's, so its access log and ours
    agree), else makes one; every log line of the request carries it (config/logs.py), and so does the
    response's ``X-Request-ID``. Outermost, so a redirect or an error page carries it too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.headers.get(REQUEST_ID_HEADER, "")
        request.id = given if SANE_REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        # Cleared when the response is closed (below), not on the way out of here: Django logs a view's 4xx
        # and 5xx answers after the middleware has returned.
        logs.request_id.set(request.id)
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request.id
        return response


def _forget_request_id(**_) -> None:
    logs.request_id.set(None)


request_finished.connect(_forget_request_id, dispatch_uid="kozyr-forget-request-id")


class RejectNulInPath:
    """A NUL character in a URL can name nothing (PostgreSQL refuses it in text): 404 before any query."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            raise Http404("no such page")
        return self.get_response(request)


class ContentSecurityPolicy(CSPMiddleware):
    """django-csp's middleware (the policy is CONTENT_SECURITY_POLICY in settings), with what ReDoc's page
    needs beside it, on that page only: its search index runs in a worker made from a blob: URL (only a script
    the policy let run can make one). Its inline style and scripts carry the request's nonce
    (web/templates/drf_spectacular/redoc.html)."""

    REDOC = "/api/redoc/"
    REDOC_EXTRA = {"worker-src": ["blob:"]}

    def get_policy_parts(self, request, response, report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if not report_only and request.path_info == self.REDOC and parts.update is None:
            parts.update = self.REDOC_EXTRA
        return parts
