"""Requests no view should ever see, and the Content-Security-Policy every response carries."""

from __future__ import annotations

from csp.middleware import CSPMiddleware, PolicyParts
from django.http import Http404


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
