"""The OpenAPI schema as other programs read it: valid, every body's media types the ones the view really
takes, every success answer's body described, every error answer the one error body.

The checks walk the whole schema, so an endpoint added later is held to them without a test of its own."""

from __future__ import annotations

import re

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import resolve
from openapi_spec_validator import validate
from rest_framework.test import APIClient

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
JSON = "application/json"
MULTIPART = "multipart/form-data"
FORM = "application/x-www-form-urlencoded"
ERROR_BODY = {JSON: {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}


@pytest.fixture(scope="module")
def schema(tmp_path_factory) -> dict:
    """The schema as `manage.py spectacular` writes it (failing on any generator warning)."""
    out = tmp_path_factory.mktemp("schema") / "kozyr.yaml"
    call_command("spectacular", "--file", str(out), "--fail-on-warn")
    return yaml.safe_load(out.read_text())


def operations(schema: dict) -> list[tuple[str, str, dict]]:
    return [(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()
            if method in METHODS]


def resolved(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        name = node["$ref"].removeprefix("#/components/schemas/")
        node = schema["components"]["schemas"][name]
    return node


def has_binary(schema: dict, node: dict) -> bool:
    node = resolved(schema, node)
    if node.get("format") == "binary":
        return True
    parts = [*node.get("properties", {}).values(), *node.get("allOf", []), *node.get("oneOf", [])]
    if "items" in node:
        parts.append(node["items"])
    return any(has_binary(schema, part) for part in parts)


def described(schema: dict, node: dict | None, media_type: str) -> bool:
    """A body a client can read: bytes or text for a download, else fields it can name."""
    if node is None:
        return False
    node = resolved(schema, node)
    if media_type != JSON:
        return node.get("type") == "string" and (media_type.startswith("text/") or node.get("format") == "binary")
    if node.get("type") == "array":
        return described(schema, node.get("items"), media_type)
    return bool(node.get("properties") or node.get("additionalProperties") or node.get("allOf"))


def test_it_validates_as_openapi_3(schema):
    assert schema["openapi"].startswith("3.")
    validate(schema)


@pytest.mark.django_db
def test_the_served_schema_validates_too(client):
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    validate(response.json())


def test_every_body_is_json_or_else_a_multipart_upload_and_nothing_else(schema):
    wrong, seen = [], set()
    for path, method, op in operations(schema):
        if "requestBody" not in op:
            continue
        content = op["requestBody"]["content"]
        uploads = any(has_binary(schema, media.get("schema", {})) for media in content.values())
        expected = [MULTIPART] if uploads else [JSON]
        seen.add(expected[0])
        if list(content) != expected:
            wrong.append(f"{method.upper()} {path}: {list(content)}, expected {expected}")
    assert not wrong, "\n".join(wrong)
    assert seen == {JSON, MULTIPART}  # the walk saw both kinds (the bot upload is the multipart one)


def test_every_documented_body_type_is_what_the_view_parses(schema):
    """The schema's media types are exactly the view's parsers: what it says is what DRF accepts."""
    wrong = []
    for path, method, op in operations(schema):
        if "requestBody" not in op:
            continue
        view = resolve(re.sub(r"\{\w+\}", "1", path)).func.view_class()
        parsed = sorted(parser.media_type for parser in view.get_parsers())
        if sorted(op["requestBody"]["content"]) != parsed:
            wrong.append(f"{method.upper()} {path}: documents {sorted(op['requestBody']['content'])}, parses {parsed}")
    assert not wrong, "\n".join(wrong)


def test_every_success_answer_describes_its_body(schema):
    wrong = []
    for path, method, op in operations(schema):
        successes = {code: answer for code, answer in op["responses"].items() if code.startswith("2")}
        if not successes:
            wrong.append(f"{method.upper()} {path}: no success answer")
        for code, answer in successes.items():
            if code == "204":
                if answer.get("content"):
                    wrong.append(f"{method.upper()} {path} 204 has a body")
                continue
            content = answer.get("content") or {}
            if not content:
                wrong.append(f"{method.upper()} {path} {code}: no body described")
            for media_type, media in content.items():
                if not described(schema, media.get("schema"), media_type):
                    wrong.append(f"{method.upper()} {path} {code} {media_type}: {media.get('schema')}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("path", "media_type", "body"), [
    ("/api/v1/matches/{id}/replay/", "application/gzip", {"type": "string", "format": "binary"}),
    ("/api/v1/bots/{name}/versions/{number}/download/", "application/octet-stream",
     {"type": "string", "format": "binary"}),
    ("/api/v1/matches/{id}/seats/{seat}/log/", "text/plain", {"type": "string"}),
])
def test_downloads_are_described_with_their_real_media_types(schema, path, media_type, body):
    assert schema["paths"][path]["get"]["responses"]["200"]["content"] == {media_type: {"schema": body}}


def test_presets_are_listed_with_their_fields(schema):
    answer = schema["paths"]["/api/v1/presets/"]["get"]["responses"]["200"]["content"][JSON]["schema"]
    assert answer == {"type": "array", "items": {"$ref": "#/components/schemas/Preset"}}
    preset = schema["components"]["schemas"]["Preset"]
    assert set(preset["properties"]) == {"name", "game", "seats", "teams", "options"}


def test_every_error_answer_is_the_one_error_body(schema):
    error = schema["components"]["schemas"]["Error"]
    assert set(error["properties"]) == {"code", "message", "fields", "retry_after_seconds"}
    assert set(error["required"]) == {"code", "message", "fields"}
    wrong = []
    for path, method, op in operations(schema):
        where = f"{method.upper()} {path}"
        for code, answer in op["responses"].items():
            if code.startswith(("4", "5")) and answer.get("content") != ERROR_BODY:
                wrong.append(f"{where} {code}: {answer.get('content')}")
        expected = {"401"}  # a token that is sent is checked everywhere
        if "{" in path:
            expected.add("404")
        if "requestBody" in op:
            expected |= {"400", "413", "415"}
        missing = expected - set(op["responses"])
        if missing:
            wrong.append(f"{where}: documents {sorted(op['responses'])}, lacks {sorted(missing)}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.django_db
def test_an_answered_error_parses_as_the_documented_body(bura_bot):
    from config.api import ErrorBodySerializer

    for response in (APIClient().get("/api/v1/bots/no-such-bot/"), APIClient().post("/api/v1/tokens/", {}),
                     APIClient().get("/api/v1/matches/?since=yesterday")):
        assert response.status_code in (400, 401, 404)
        body = ErrorBodySerializer(data=response.json())
        assert body.is_valid(), (response.json(), body.errors)
        assert set(response.json()["error"]) <= set(ErrorBodySerializer().fields["error"].fields)


# ---- what the endpoints really take ----------------------------------------------------------------------

def bodies_without_path_parameters(schema: dict) -> list[tuple[str, str]]:
    return [(path, method) for path, method, op in operations(schema) if "requestBody" in op and "{" not in path]


@pytest.mark.django_db
def test_a_json_endpoint_refuses_a_form_or_multipart_body_with_415(schema, alice, as_user, house_bots):
    checked = bodies_without_path_parameters(schema)
    assert len(checked) >= 5, checked  # log-in, tokens, bots, challenges, tournaments, version tests
    client = as_user(alice)
    for path, method in checked:
        for response in (getattr(client, method)(path, data="name=x", content_type=FORM),
                         getattr(client, method)(path, {"name": "x"}, format="multipart")):
            assert response.status_code == 415, (path, response.status_code, response.content)
            assert response.json()["error"]["code"] == "unsupported_media_type"


@pytest.mark.django_db
def test_the_upload_takes_multipart_only(alice, as_user, bura_bot):
    client = as_user(alice)
    url = f"/api/v1/bots/{bura_bot.name}/versions/"
    for response in (client.post(url, data="file=print(1)", content_type=FORM),
                     client.post(url, {"file": "print(1)"}, format="json")):
        assert response.status_code == 415, response.content
    assert not bura_bot.versions.exists()
    sent = client.post(url, {"file": SimpleUploadedFile("main.py", b"print(1)\n")}, format="multipart")
    assert sent.status_code == 201, sent.content
