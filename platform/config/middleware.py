"""Requests no view should ever see."""

from __future__ import annotations

from django.http import Http404


class RejectNulInPath:
    """A NUL character in a URL can name nothing (PostgreSQL refuses it in text): 404 before any query."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            raise Http404("no such page")
        return self.get_response(request)
