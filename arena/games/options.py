"""Declaring, parsing and validating rule options.

Each game's ``Rules`` is a frozen dataclass whose fields are declared with :func:`option`. The same
declaration drives validation (direct construction, ``--rule key=value`` strings, JSON from a replay),
the ``arena games`` listing and the rules docs, so an option cannot exist in one place and not another.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from arena.games.base import RuleOptionError

Check = Callable[[Any], "str | None"]


def option(default: Any, *, choices: tuple | None = None, between: tuple[int, int] | None = None,
           check: Check | None = None, allowed: str | None = None, source: str = "", doc: str = "",
           added_later: bool = False, follows: tuple[str, dict] | None = None):
    """A rule option. ``choices``: the allowed values; ``between``: an inclusive int range; ``check``:
    a function returning an error text for a bad value (then ``allowed`` describes good values).
    ``added_later``: the option was added after replays were first recorded and its default is the
    engine's behaviour from before, so a replay that does not name it still verifies (see
    :func:`recorded_rules_match`). ``follows``: ``(other option, {its value: this option's value})`` —
    when an override changes the other option and does not name this one, this one follows it (Kozel's
    deck follows its player count)."""
    meta = {"option": True, "choices": choices, "between": between, "check": check,
            "allowed": allowed, "source": source, "doc": doc, "added_later": added_later, "follows": follows}
    return dataclasses.field(default=default, metadata=meta)


def option_fields(rules_cls) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(rules_cls) if f.metadata.get("option")]


def allowed_text(f: dataclasses.Field) -> str:
    meta = f.metadata
    if meta["choices"] is not None:
        return " | ".join(_show(c) for c in meta["choices"])
    if meta["between"] is not None:
        lo, hi = meta["between"]
        return f"an integer from {lo} to {hi}"
    return meta["allowed"] or "see the rules docs"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse(f: dataclasses.Field, raw: Any) -> Any:
    """Turn a command-line string into the field's type; other values pass through to validation."""
    if not isinstance(raw, str):
        return raw
    kind = type(f.default)
    if kind is bool:
        low = raw.strip().lower()
        if low in ("true", "on", "yes", "1"):
            return True
        if low in ("false", "off", "no", "0"):
            return False
        raise RuleOptionError(f"option {f.name!r}: {raw!r} is not allowed; use true or false")
    if kind is int:
        try:
            return int(raw.strip())
        except ValueError:
            raise RuleOptionError(f"option {f.name!r}: {raw!r} is not an integer; allowed: {allowed_text(f)}") \
                from None
    return raw.strip()


def validate_field(f: dataclasses.Field, value: Any) -> None:
    meta = f.metadata
    kind = type(f.default)
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise RuleOptionError(f"option {f.name!r}: {value!r} is not an integer; allowed: {allowed_text(f)}")
    if kind is bool and not isinstance(value, bool):
        raise RuleOptionError(f"option {f.name!r}: {value!r} is not allowed; use true or false")
    if kind is str and not isinstance(value, str):
        raise RuleOptionError(f"option {f.name!r}: {value!r} is not allowed; allowed: {allowed_text(f)}")
    if meta["choices"] is not None and value not in meta["choices"]:
        raise RuleOptionError(f"option {f.name!r}: {_show(value)!r} is not allowed; allowed: {allowed_text(f)}")
    if meta["between"] is not None:
        lo, hi = meta["between"]
        if not lo <= value <= hi:
            raise RuleOptionError(f"option {f.name!r}: {value} is out of range; allowed: {allowed_text(f)}")
    if meta["check"] is not None:
        problem = meta["check"](value)
        if problem:
            raise RuleOptionError(f"option {f.name!r}: {problem}; allowed: {allowed_text(f)}")


def validate_rules(rules) -> None:
    """Check every option of a Rules instance; call from ``__post_init__``."""
    for f in option_fields(type(rules)):
        validate_field(f, getattr(rules, f.name))


def with_options(rules, overrides: Mapping[str, Any]):
    """A copy of ``rules`` with options replaced; strings are parsed (``--rule key=value``)."""
    fields = {f.name: f for f in option_fields(type(rules))}
    changes = {}
    for key, raw in overrides.items():
        if key not in fields:
            raise RuleOptionError(f"unknown option {key!r}; options are: {', '.join(sorted(fields))}")
        changes[key] = _parse(fields[key], raw)
        validate_field(fields[key], changes[key])
    for f in fields.values():
        follows = f.metadata["follows"]
        if follows is not None and f.name not in changes and follows[0] in changes:
            other, values = follows
            if changes[other] in values:
                changes[f.name] = values[changes[other]]
    return dataclasses.replace(rules, **changes)


def rules_to_dict(rules) -> dict[str, Any]:
    return {f.name: getattr(rules, f.name) for f in option_fields(type(rules))}


def describe(rules) -> list[dict[str, Any]]:
    """One row per option with its value in ``rules``, what is allowed, its source and meaning."""
    return [{"name": f.name, "value": getattr(rules, f.name), "allowed": allowed_text(f),
             "source": f.metadata["source"], "doc": f.metadata["doc"]} for f in option_fields(type(rules))]


def recorded_rules_match(rules, recorded: Mapping[str, Any]) -> bool:
    """Do the recorded options name exactly these rules?

    A replay names every option that existed when it was recorded. An option declared ``added_later`` may
    be absent: its dataclass default is the engine's behaviour before the option existed (the presets
    set RULES.md's defaults), so the replay re-runs with that default and still verifies. Every other
    option must be named, with the value in force.
    """
    for f in option_fields(type(rules)):
        value = getattr(rules, f.name)
        if f.name in recorded:
            if recorded[f.name] != value:
                return False
        elif not (f.metadata["added_later"] and value == f.default):
            return False
    return recorded.keys() <= {f.name for f in option_fields(type(rules))}
