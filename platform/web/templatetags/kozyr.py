"""Small display filters of the site's templates: ``{% load kozyr %}``."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import template

register = template.Library()


@register.filter
def points(value):
    """A score as people write it: 12 for 12.0, 2.5 for 2.5, 0.33 for 1/3; anything else unchanged."""
    if value is None or isinstance(value, bool) or value == "":
        return value
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return value
    if number == number.to_integral_value():
        return str(int(number))
    return format(number.quantize(Decimal("0.01")).normalize(), "f")


@register.filter
def points_list(values, separator=" "):
    """Each score of a list through ``points``, joined by ``separator``."""
    return separator.join(str(points(v)) for v in values)


@register.filter
def repeats_help(errors, help_text) -> bool:
    """True when a field's error already says its help text (then the help is not printed again below)."""
    help_text = str(help_text or "").strip()
    return bool(help_text) and any(help_text in str(e) for e in errors)
