"""Small SVG charts drawn on the server (no chart library, nothing to load): a bot's rating history (one line
per preset, its 95% interval as a band), a match's score progression and a knockout bracket.

A chart scales with its box (a viewBox, drawn at the page's width), so one drawing fits a desktop and a 390 px
phone. It says what it shows twice: in ``<title>`` and ``<desc>`` for screen readers, and in text for
everyone (a legend naming each line, axis ticks). Sizes and colours are presentation attributes, never
``style`` attributes (the Content-Security-Policy refuses those), and no class the site's CSS sizes (so
the text keeps the size chosen here).
"""

from __future__ import annotations

import calendar
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

COLORS = ("#1b6e3a", "#b3261e", "#1f4e99", "#8a5a00", "#6b2f8f", "#00707a")
DASHES = ("", "8 4", "2 3", "10 3 2 3", "5 2", "1 3")  # a line is told by its dash too, not by colour alone
INK, MUTED, GRID = "#1d2330", "#6b7280", "#e3e6ea"

WIDTH = 480  # user units: at a phone's ~360 px a 13-unit label is ~10 px high, at the desktop's 640 px ~17 px
FONT = 13
LEFT, RIGHT = 48, 14  # the plot's margins, room for the value ticks on the left
PLOT_HEIGHT = 170
LEGEND_ROW = 20
CHAR = 0.56 * FONT  # a label's width per character, near enough to lay the legend out in rows
MIN_RATING_SPAN = 20  # Elo: the least the value axis spans
DOTS_UP_TO = 60  # a line of more points than this is drawn without a dot per point (its last one keeps it)

Point = tuple[datetime, float, float, float]  # (time, rating, low, high)


def _num(value: float) -> str:
    """A number as people write it: 12 for 12.0, 2.5 for 2.5, 0.33 for 1/3."""
    rounded = round(float(value), 2)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"


def _open(ident: str, height: float, title: str, desc: str, extra_class: str = "") -> str:
    return (f'<svg class="chart{" " + extra_class if extra_class else ""}" id="{ident}" viewBox="0 0 {WIDTH} '
            f'{height:.0f}" role="img" aria-labelledby="{ident}-title {ident}-desc" font-size="{FONT}">'
            f'<title id="{ident}-title">{escape(title)}</title><desc id="{ident}-desc">{escape(desc)}</desc>')


def _text(x: float, y: float, text: str, *, anchor: str = "start", cls: str = "", fill: str = MUTED,
          weight: str = "") -> str:
    attrs = f' class="{cls}"' if cls else ""
    attrs += f' font-weight="{weight}"' if weight else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" fill="{fill}"{attrs}>{escape(text)}</text>')


def _legend(items: Sequence[tuple[str, str, str]], top: float) -> tuple[str, float]:
    """Legend entries (text, colour, dash) in rows across the chart: the markup and the height it takes."""
    parts, x, y = [], 8.0, top + 14
    for text, color, dash in items:
        width = 30 + len(text) * CHAR
        if x > 8 and x + width > WIDTH - 4:
            x, y = 8.0, y + LEGEND_ROW
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<g class="legend-item"><line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + 22:.1f}" y2="{y - 4:.1f}" '
                     f'stroke="{color}" stroke-width="3"{dashed}/>'
                     + _text(x + 27, y, text, fill=INK, cls="legend") + "</g>")
        x += width + 12
    return "".join(parts), y - top + 6


def nice_ticks(low: float, high: float, most: int = 5) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) from at or below ``low`` to at or above ``high``,
    at most ``most`` of them."""
    if high <= low:
        low, high = low - 1, high + 1
    power = 10 ** math.floor(math.log10((high - low) / most))
    step = power
    for multiple in (1, 2, 5, 10, 20, 50):
        step = multiple * power
        if math.ceil(high / step) - math.floor(low / step) + 1 <= most:
            break
    return [round(i * step, 10) for i in range(math.floor(low / step), math.ceil(high / step) + 1)]


# ---------------------------------------------------------------------------------------------- time ticks

MINUTE, HOUR, DAY = 60, 3600, 86400
SECOND_STEPS = (MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR,
                3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY)
MONTH_STEPS = (1, 2, 3, 6, 12, 24, 60, 120, 600)
MONDAY = datetime(1970, 1, 5, tzinfo=UTC)  # weeks are counted from a Monday


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _day_month(moment: datetime) -> str:
    return f"{moment.day} {calendar.month_abbr[moment.month]}"


def time_ticks(start: datetime, end: datetime, most: int = 6) -> list[tuple[datetime, tuple[str, ...]]]:
    """Ticks from ``start`` to ``end`` at the smallest round step (minutes, hours, days, weeks, months or
    years, in UTC) that gives at most ``most`` of them, each with its label: the time of day under a day,
    the day and month from a day to a fortnight, the month, or the year. A second line names what the first
    leaves out (the date under times, the year under days and months) at the first tick and wherever it
    changes, so "23:30 / 1 Dec" is followed by "00:00 / 2 Dec", not by a second "1 Dec"."""
    start, end = _utc(start), _utc(end)
    span = (end - start).total_seconds()
    moments: list[datetime] = []
    step_months = 0
    step_seconds = next((s for s in SECOND_STEPS if span // s + 1 <= most), None)
    if step_seconds is not None:
        origin = MONDAY if step_seconds >= 7 * DAY else datetime(1970, 1, 1, tzinfo=UTC)
        k = math.ceil((start - origin).total_seconds() / step_seconds)
        moment = origin + timedelta(seconds=k * step_seconds)
        while moment <= end:
            moments.append(moment)
            moment += timedelta(seconds=step_seconds)
    else:
        months = (end.year - start.year) * 12 + end.month - start.month
        step_months = next((m for m in MONTH_STEPS if months // m + 1 <= most), MONTH_STEPS[-1])
        index = start.year * 12 + start.month - 1
        if (start.day, start.hour, start.minute, start.second, start.microsecond) != (1, 0, 0, 0, 0):
            index += 1  # the first of the next month: a tick is never before the start
        index += -index % step_months
        while True:
            moment = datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)
            if moment > end:
                break
            moments.append(moment)
            index += step_months
    ticks: list[tuple[datetime, tuple[str, ...]]] = []
    previous: datetime | None = None
    for moment in moments:
        if step_seconds is not None and step_seconds < DAY:
            main, context = f"{moment:%H:%M}", _day_month(moment)
            changed = previous is None or previous.date() != moment.date()
        elif step_seconds is not None:
            main, context = _day_month(moment), str(moment.year)
            changed = previous is None or previous.year != moment.year
        elif step_months < 12:
            main, context = calendar.month_abbr[moment.month], str(moment.year)
            changed = previous is None or previous.year != moment.year
        else:
            main, context, changed = str(moment.year), "", False
        ticks.append((moment, (main, context) if changed and context else (main,)))
        previous = moment
    return ticks


def _when(moment: datetime) -> str:
    moment = _utc(moment)
    return f"{_day_month(moment)} {moment.year} {moment:%H:%M}"


# ---------------------------------------------------------------------------------------------- rating

def rating_history(series: Mapping[str, Sequence[Point]], title: str, ident: str = "rating-history") -> SafeString:
    """One chart of a bot's official rating over time: a line per preset (in the mapping's order) through its
    refits, the 95% interval around it as a band, a legend naming each preset with its rating now, time
    ticks spaced by the span shown. ``series[preset]``: (time, rating, low, high) in time order; presets
    without a point are left out. Nothing at all (an empty string) when no preset has a point: the page
    says "no rated games yet" instead."""
    lines = {preset: list(points) for preset, points in series.items() if points}
    if not lines:
        return mark_safe("")
    times = [_utc(p[0]) for points in lines.values() for p in points]
    first, last = min(times), max(times)
    span = (last - first).total_seconds()
    pad = max(span * 0.04, (HOUR - span) / 2)  # at least an hour shown: one refit is a dot in its hour
    start, end = first - timedelta(seconds=pad), last + timedelta(seconds=pad)
    lowest = min(p[2] for points in lines.values() for p in points)
    highest = max(p[3] for points in lines.values() for p in points)
    if highest - lowest < MIN_RATING_SPAN:  # a rating without an interval still gets a readable scale
        middle = (highest + lowest) / 2
        lowest, highest = middle - MIN_RATING_SPAN / 2, middle + MIN_RATING_SPAN / 2
    values = nice_ticks(lowest, highest)
    low, high = values[0], values[-1]

    items = []
    for k, (preset, points) in enumerate(lines.items()):
        _, rating, lo, hi = points[-1]
        items.append((f"{preset} {rating:.0f} ± {(hi - lo) / 2:.0f}", COLORS[k % len(COLORS)],
                      DASHES[k % len(DASHES)]))
    legend, legend_height = _legend(items, 0)
    top = legend_height + 30
    bottom = top + PLOT_HEIGHT
    height = bottom + 44
    total = (end - start).total_seconds()

    def x_of(moment: datetime) -> float:
        return LEFT + (_utc(moment) - start).total_seconds() / total * (WIDTH - LEFT - RIGHT)

    def y_of(value: float) -> float:
        return bottom - (value - low) / ((high - low) or 1) * PLOT_HEIGHT

    summary = "; ".join(f"{preset}: {points[-1][1]:.0f} ± {(points[-1][3] - points[-1][2]) / 2:.0f} now, "
                        f"{points[0][1]:.0f} at the first of {len(points)} refit{'s' if len(points) > 1 else ''}"
                        for preset, points in lines.items())
    desc = (f"Official rating (Elo) after each refit, {_when(first)} to {_when(last)} UTC, one line per preset "
            f"with its 95% interval as a band. {summary}.")
    parts = [_open(ident, height, title, desc, "rating-history"), legend]
    parts.append(_text(LEFT - 6, top - 12, "Elo", anchor="end"))
    parts.append(_text(WIDTH - RIGHT, top - 12, "times in UTC", anchor="end"))
    for value in values:
        y = y_of(value)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="{GRID}"/>')
        parts.append(_text(LEFT - 6, y + 4, _num(value), anchor="end", cls="value-tick"))
    for moment, label in time_ticks(start, end):
        x = x_of(moment)
        anchor = "end" if x > WIDTH - RIGHT - 20 else "start" if x < LEFT + 20 else "middle"
        parts.append(f'<line x1="{x:.1f}" y1="{bottom:.1f}" x2="{x:.1f}" y2="{bottom + 5:.1f}" stroke="{MUTED}"/>')
        lines_of = "".join(f'<tspan x="{x:.1f}" dy="{0 if i == 0 else 16}">{escape(part)}</tspan>'
                           for i, part in enumerate(label))
        parts.append(f'<text class="time-tick" y="{bottom + 19:.1f}" text-anchor="{anchor}" fill="{MUTED}">'
                     f'{lines_of}</text>')
    parts.append(f'<line x1="{LEFT}" y1="{bottom:.1f}" x2="{WIDTH - RIGHT}" y2="{bottom:.1f}" stroke="{MUTED}"/>')
    for k, (preset, points) in enumerate(lines.items()):
        color, dash = COLORS[k % len(COLORS)], DASHES[k % len(DASHES)]
        xs = [x_of(p[0]) for p in points]
        parts.append(f'<g class="series" data-preset="{escape(preset)}">')
        if len(points) > 1:
            outline = [f"{x:.1f},{y_of(p[3]):.1f}" for x, p in zip(xs, points, strict=True)]
            outline += [f"{x:.1f},{y_of(p[2]):.1f}" for x, p in zip(reversed(xs), reversed(points), strict=True)]
            parts.append(f'<polygon class="band" points="{" ".join(outline)}" fill="{color}" fill-opacity="0.1"/>')
            dashed = f' stroke-dasharray="{dash}"' if dash else ""
            path = " ".join(f"{x:.1f},{y_of(p[1]):.1f}" for x, p in zip(xs, points, strict=True))
            parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2.2"{dashed}/>')
        else:
            parts.append(f'<rect class="band" x="{xs[0] - 5:.1f}" y="{y_of(points[0][3]):.1f}" width="10" '
                         f'height="{y_of(points[0][2]) - y_of(points[0][3]):.1f}" fill="{color}" fill-opacity="0.18"/>')
        dotted = range(len(points)) if len(points) <= DOTS_UP_TO else [len(points) - 1]
        for i in dotted:
            moment, rating, lo, hi = points[i]
            parts.append(f'<circle cx="{xs[i]:.1f}" cy="{y_of(rating):.1f}" r="3" fill="{color}"><title>'
                         f'{escape(preset)}, {escape(_when(moment))} UTC: {rating:.0f} ({lo:.0f}–{hi:.0f})'
                         f'</title></circle>')
        parts.append("</g>")
    parts.append("</svg>")
    return mark_safe("".join(parts))


# ---------------------------------------------------------------------------------------------- scores

def score_progression(series: Sequence[Sequence[float]], labels: Sequence[str], title: str,
                      points_kind: str = "score", ident: str = "score-progression") -> SafeString:
    """A match's running total per side after each deal, a line per side from the start (0) to the end, the
    legend naming each side (its bots) with its final total. ``series[k][d]``: side k's total after deal
    d + 1. A penalty chart says lower is better, a points chart higher."""
    if not series or not series[0]:
        return mark_safe("")
    deals = len(series[0])
    penalty = points_kind == "penalty"
    values = nice_ticks(min(0, *(v for s in series for v in s)), max(0, *(v for s in series for v in s)))
    low, high = values[0], values[-1]
    items = [(f"{label}: {_num(s[-1])}", COLORS[k % len(COLORS)], DASHES[k % len(DASHES)])
             for k, (s, label) in enumerate(zip(series, labels, strict=True))]
    legend, legend_height = _legend(items, 0)
    top = legend_height + 30
    bottom = top + PLOT_HEIGHT
    height = bottom + 30

    def x_of(deal: float) -> float:
        return LEFT + deal / deals * (WIDTH - LEFT - RIGHT)

    def y_of(value: float) -> float:
        return bottom - (value - low) / ((high - low) or 1) * PLOT_HEIGHT

    kind = "Penalty points, lower is better" if penalty else "Points, higher is better"
    ends = "; ".join(f"{label}: {_num(s[-1])}" for s, label in zip(series, labels, strict=True))
    desc = f"{kind}: each side's running total after each of {deals} deal{'s' if deals > 1 else ''}. {ends}."
    parts = [_open(ident, height, title, desc, "score-progression"), legend]
    parts.append(_text(LEFT, top - 12, "penalty points · lower is better" if penalty else
                       "points · higher is better", cls="kind", fill=INK, weight="600"))
    parts.append(_text(WIDTH - RIGHT, top - 12, "after deal", anchor="end"))
    for value in values:
        y = y_of(value)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="{GRID}"/>')
        parts.append(_text(LEFT - 6, y + 4, _num(value), anchor="end", cls="value-tick"))
    every = max(1, math.ceil(deals / 12))
    for deal in range(0, deals + 1):
        if deal and deal % every and deal != deals:
            continue
        x = x_of(deal)
        anchor = "end" if deal == deals and deals > 1 else "start" if deal == 0 else "middle"
        parts.append(f'<line x1="{x:.1f}" y1="{bottom:.1f}" x2="{x:.1f}" y2="{bottom + 5:.1f}" stroke="{MUTED}"/>')
        parts.append(_text(x, bottom + 19, str(deal) if deal else "start", anchor=anchor, cls="deal-tick"))
    parts.append(f'<line x1="{LEFT}" y1="{bottom:.1f}" x2="{WIDTH - RIGHT}" y2="{bottom:.1f}" stroke="{MUTED}"/>')
    for k, (totals, label) in enumerate(zip(series, labels, strict=True)):
        color, dash = COLORS[k % len(COLORS)], DASHES[k % len(DASHES)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        path = " ".join(f"{x_of(d):.1f},{y_of(v):.1f}" for d, v in enumerate([0, *totals]))
        parts.append(f'<g class="series"><polyline points="{path}" fill="none" stroke="{color}" stroke-width="2.2"'
                     f'{dashed}/>')
        for d, v in enumerate(totals, start=1):
            parts.append(f'<circle cx="{x_of(d):.1f}" cy="{y_of(v):.1f}" r="2.5" fill="{color}"><title>'
                         f'{escape(label)} after deal {d}: {_num(v)}</title></circle>')
        parts.append("</g>")
    parts.append("</svg>")
    return mark_safe("".join(parts))


def bracket(rounds: Sequence[dict]) -> SafeString:
    """A knockout bracket: one column per round, each tie a box with the winner in bold."""
    if not rounds:
        return mark_safe("")
    box_w, box_h, gap_x = 170, 38, 40
    first = len(rounds[0]["pairings"])
    height = max(first * (box_h + 12), box_h + 12) + 20
    width = len(rounds) * (box_w + gap_x) + 20
    parts = [f'<svg class="chart bracket" viewBox="0 0 {width} {height}" role="img" aria-label="bracket">']
    for col, rnd in enumerate(rounds):
        ties = rnd["pairings"]
        slot = (height - 20) / max(1, len(ties))
        x = 10 + col * (box_w + gap_x)
        for k, tie in enumerate(ties):
            y = 10 + k * slot + (slot - box_h) / 2
            winner = None
            if tie["second"] is None:
                winner = tie["first"]
            elif tie["score"] is not None:
                winner = tie["first"] if tie["score"] == 1.0 else tie["second"]
            parts.append(f'<rect x="{x}" y="{y:.1f}" width="{box_w}" height="{box_h}" rx="4" fill="#fff" '
                         f'stroke="#c9ced4"/>')
            for line, name in enumerate((tie["first"], tie["second"] or "bye")):
                weight = "700" if name == winner else "400"
                parts.append(f'<text x="{x + 8}" y="{y + 15 + 15 * line:.1f}" font-size="12" '
                             f'font-weight="{weight}">{escape(name)}</text>')
            if col + 1 < len(rounds):
                parts.append(f'<line x1="{x + box_w}" y1="{y + box_h / 2:.1f}" x2="{x + box_w + gap_x / 2}" '
                             f'y2="{y + box_h / 2:.1f}" stroke="#c9ced4"/>')
    parts.append("</svg>")
    return mark_safe("".join(parts))
