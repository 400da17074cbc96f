"""What every API endpoint shares: the error shape and pagination.

Every error answer is ``{"error": {"code": …, "message": one line, "fields": {field: [messages]}}}``, so
clients (the ``arena`` CLI among them) can always print ``message``. ``ErrorBodySerializer`` describes it
in the OpenAPI schema (api.schema lists it under every error status an endpoint can answer).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404
from rest_framework import exceptions, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from config.errors import ActionError


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    if isinstance(detail, dict):
        found: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            found.update(_flatten(value, name))
        return found
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return {prefix or "non_field_errors": [str(item) for item in detail]}
        found = {}
        for index, item in enumerate(detail):
            found.update(_flatten(item, f"{prefix}[{index}]"))
        return found
    return {prefix or "non_field_errors": [str(detail)]}


def _code(exc: exceptions.APIException) -> str:
    codes = exc.get_codes()
    if isinstance(codes, str):
        return codes
    return "invalid"


def reject_unknown_fields(serializer_class, data) -> None:
    """Extra fields are mistakes: a typo silently ignored is worse than an error naming it."""
    if not hasattr(data, "keys"):
        raise exceptions.ValidationError({"non_field_errors": ["expected a JSON object"]})
    extra = sorted(set(data.keys()) - set(serializer_class().fields))
    if extra:
        raise exceptions.ValidationError({name: ["unknown field"] for name in extra})


def error_body(code: str, message: str, fields: dict | None = None) -> dict:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="what kind of error, for programs: invalid, not_found, "
                                           "not_authenticated, authentication_failed, permission_denied, "
                                           "throttled, too-large, unsupported_media_type, embargoed (a deal "
                                           "still in play), or an action's own code")
    message = serializers.CharField(help_text="one line for a person: what was wrong and how to fix it")
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                   help_text="each input at fault and its messages (empty when none is)")
    retry_after_seconds = serializers.IntegerField(required=False,
                                                   help_text="a 429's wait before the next attempt")


class ErrorBodySerializer(serializers.Serializer):
    """The body of every error answer: `error.message` is one line for a person, `error.code` the kind of
    error for a program, `error.fields` the inputs at fault."""

    # (the OpenAPI schema's description of what exception_handler and error_body write)

    error = ErrorSerializer()


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too-large"


class Refused(exceptions.APIException):
    """An ActionError whose status is not 400 (a cap reached: 403), with the action's own code."""

    def __init__(self, message: str, code: str, status_code: int):
        super().__init__(message, code)
        self.status_code = status_code


def as_api_exception(err: ActionError) -> exceptions.APIException:
    """An action's refusal as the API answers it: a 400 whose field is the input at fault, or the error's
    own status."""
    if err.status == status.HTTP_400_BAD_REQUEST:
        return exceptions.ValidationError({err.field or "non_field_errors": [str(err)]})
    return Refused(str(err), err.code, err.status)


def exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, ActionError):
        exc = as_api_exception(exc)
    elif isinstance(exc, Http404):
        message = str(exc) if exc.args and str(exc) else "not found"
        exc = exceptions.NotFound(message)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(f"the request body is larger than the limit of "
                              f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 2**20} MiB")
    elif isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        exc = exceptions.ParseError("the request has too many form fields or files")
    elif isinstance(exc, RecursionError):
        exc = exceptions.ParseError("the JSON body is nested too deeply")
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first_field, first_messages = next(iter(fields.items()), ("", ["invalid input"]))
        where = "" if first_field == "non_field_errors" else f"{first_field}: "
        message = f"{where}{first_messages[0]}"
        if len(fields) > 1:
            message += f" (and {len(fields) - 1} more field error{'s' if len(fields) > 2 else ''})"
        response.data = {"error": {"code": "invalid", "message": message, "fields": fields}}
    else:
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        response.data = {"error": {"code": _code(exc), "message": str(detail), "fields": {}}}
    if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS and getattr(exc, "wait", None):
        response.data["error"]["retry_after_seconds"] = int(exc.wait)
    return response
