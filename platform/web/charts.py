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
from collections.abc import Sequence
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

OLD_WIDTH, OLD_HEIGHT, OLD_PAD = 640, 220, 36


def _scale(values: Sequence[float], low: float, high: float, out_low: float, out_high: float) -> list[float]:
    span = (high - low) or 1.0
    return [out_low + (v - low) / span * (out_high - out_low) for v in values]


def rating_history(points: Sequence[tuple[datetime, float, float, float]], title: str) -> SafeString:
    """points: (time, rating, low, high) in time order."""
    if not points:
        return mark_safe("")
    times = [p[0].timestamp() for p in points]
    low = min(p[2] for p in points)
    high = max(p[3] for p in points)
    xs = _scale(times, min(times), max(times), OLD_PAD, OLD_WIDTH - OLD_PAD / 2) if len(points) > 1 else [OLD_WIDTH / 2]
    ys = _scale([p[1] for p in points], low, high, OLD_HEIGHT - OLD_PAD, OLD_PAD / 2)
    ys_low = _scale([p[2] for p in points], low, high, OLD_HEIGHT - OLD_PAD, OLD_PAD / 2)
    ys_high = _scale([p[3] for p in points], low, high, OLD_HEIGHT - OLD_PAD, OLD_PAD / 2)
    band = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys_high, strict=True))
    band += " " + " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(reversed(xs), reversed(ys_low), strict=True))
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
    last = points[-1]
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5"><title>{escape(p[0].strftime("%Y-%m-%d %H:%M"))}: '
                   f'{p[1]:.0f} ({p[2]:.0f}–{p[3]:.0f})</title></circle>' for x, y, p in zip(xs, ys, points,
                                                                                                strict=True))
    return mark_safe(
        f'<svg class="chart" viewBox="0 0 {OLD_WIDTH} {OLD_HEIGHT}" role="img" aria-label="{escape(title)}">'
        f'<polygon points="{band}" fill="#1b6e3a22" stroke="none"/>'
        f'<polyline points="{line}" fill="none" stroke="#1b6e3a" stroke-width="2"/>'
        f'<g fill="#1b6e3a">{dots}</g>'
        f'<text x="{OLD_PAD}" y="{OLD_HEIGHT - 8}" class="axis">{escape(points[0][0].strftime("%Y-%m-%d"))}</text>'
        f'<text x="{OLD_WIDTH - OLD_PAD / 2}" y="{OLD_HEIGHT - 8}" text-anchor="end" class="axis">'
        f'{escape(last[0].strftime("%Y-%m-%d %H:%M"))}</text>'
        f'<text x="4" y="{OLD_PAD / 2 + 4}" class="axis">{high:.0f}</text>'
        f'<text x="4" y="{OLD_HEIGHT - OLD_PAD}" class="axis">{low:.0f}</text>'
        f'<text x="{OLD_WIDTH - OLD_PAD / 2}" y="{OLD_PAD / 2 + 4}" text-anchor="end" class="value">now {last[1]:.0f} '
        f'± {(last[3] - last[2]) / 2:.0f}</text></svg>')


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
