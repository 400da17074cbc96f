"""Small SVG charts drawn on the server (no chart library, nothing to load): a rating history with its
95% band, and a match's score progression."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT, PAD = 640, 220, 36
COLORS = ("#1b6e3a", "#b3261e", "#1f4e99", "#8a5a00", "#6b2f8f", "#00707a")


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
    xs = _scale(times, min(times), max(times), PAD, WIDTH - PAD / 2) if len(points) > 1 else [WIDTH / 2]
    ys = _scale([p[1] for p in points], low, high, HEIGHT - PAD, PAD / 2)
    ys_low = _scale([p[2] for p in points], low, high, HEIGHT - PAD, PAD / 2)
    ys_high = _scale([p[3] for p in points], low, high, HEIGHT - PAD, PAD / 2)
    band = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys_high, strict=True))
    band += " " + " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(reversed(xs), reversed(ys_low), strict=True))
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
    last = points[-1]
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5"><title>{escape(p[0].strftime("%Y-%m-%d %H:%M"))}: '
                   f'{p[1]:.0f} ({p[2]:.0f}–{p[3]:.0f})</title></circle>' for x, y, p in zip(xs, ys, points,
                                                                                                strict=True))
    return mark_safe(
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">'
        f'<polygon points="{band}" fill="#1b6e3a22" stroke="none"/>'
        f'<polyline points="{line}" fill="none" stroke="#1b6e3a" stroke-width="2"/>'
        f'<g fill="#1b6e3a">{dots}</g>'
        f'<text x="{PAD}" y="{HEIGHT - 8}" class="axis">{escape(points[0][0].strftime("%Y-%m-%d"))}</text>'
        f'<text x="{WIDTH - PAD / 2}" y="{HEIGHT - 8}" text-anchor="end" class="axis">'
        f'{escape(last[0].strftime("%Y-%m-%d %H:%M"))}</text>'
        f'<text x="4" y="{PAD / 2 + 4}" class="axis">{high:.0f}</text>'
        f'<text x="4" y="{HEIGHT - PAD}" class="axis">{low:.0f}</text>'
        f'<text x="{WIDTH - PAD / 2}" y="{PAD / 2 + 4}" text-anchor="end" class="value">now {last[1]:.0f} '
        f'± {(last[3] - last[2]) / 2:.0f}</text></svg>')


def score_progression(series: Sequence[Sequence[float]], labels: Sequence[str], title: str) -> SafeString:
    """series[k][d]: side k's running total after deal d."""
    if not series or not series[0]:
        return mark_safe("")
    deals = len(series[0])
    flat = [v for s in series for v in s] + [0]
    low, high = min(flat), max(flat)
    xs = _scale(list(range(deals + 1)), 0, deals, PAD, WIDTH - PAD / 2)
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">']
    for k, (values, label) in enumerate(zip(series, labels, strict=True)):
        ys = _scale([0, *values], low, high, HEIGHT - PAD, PAD / 2)
        color = COLORS[k % len(COLORS)]
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        parts.append(f'<text x="{PAD + 6}" y="{16 + 14 * k}" fill="{color}" '  # top left: lines end at the right
                     f'class="value">{escape(label)}: {values[-1]:g}</text>')
    parts.append(f'<text x="{PAD}" y="{HEIGHT - 8}" class="axis">deal 0</text>'
                 f'<text x="{WIDTH - PAD / 2}" y="{HEIGHT - 8}" text-anchor="end" class="axis">deal {deals}</text>'
                 f'<text x="4" y="{PAD / 2 + 4}" class="axis">{high:g}</text>'
                 f'<text x="4" y="{HEIGHT - PAD}" class="axis">{low:g}</text></svg>')
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
