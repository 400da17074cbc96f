"""What the pages show of analyses: a match's, by seat, and a bot's average over its recent ones."""

from __future__ import annotations

from dataclasses import dataclass

from analysis.models import Analysis
from bots.models import Bot
from matches.models import Match

RECENT = 20  # analysed matches a bot page averages over


def of_match(match: Match, budget: int) -> dict[int, Analysis]:
    """The match's analyses at ``budget``, by seat (one query)."""
    return {a.seat: a for a in Analysis.objects.filter(match=match, budget=budget)}


@dataclass(frozen=True)
class Average:
    matches: int
    loss_per_match: float  # points a match the bot's decisions cost, by the analysis
    loss_per_decision: float
    blunders_per_match: float


def bot_average(bot: Bot, recent: int = RECENT) -> Average | None:
    """The bot's newest ``recent`` finished analyses (any version, any budget) averaged, or None (one query)."""
    rows = list(Analysis.objects.filter(version__bot=bot, status=Analysis.Status.DONE).order_by("-finished")
                .values_list("expected_loss", "decisions", "result__seats__0__blunder")[:recent])
    if not rows:
        return None
    loss = sum(r[0] or 0.0 for r in rows)
    decisions = sum(r[1] for r in rows)
    return Average(matches=len(rows), loss_per_match=loss / len(rows), loss_per_decision=loss / max(1, decisions),
                   blunders_per_match=sum(int(r[2] or 0) for r in rows) / len(rows))


def viewer_payload(analyses: list[Analysis]) -> dict:
    """The replay viewer's marks: each seat's summary, and per decision what was played, what the search
    suggested and the expected loss, at the step the decision was taken from (the action's index)."""
    seats = []
    for a in sorted(analyses, key=lambda a: a.seat):
        entry: dict = {"seat": a.seat, "status": a.status, "budget": a.budget}
        if a.status == Analysis.Status.FAILED:
            entry["reason"] = a.reason
        if a.status == Analysis.Status.DONE and a.result:
            entry["summary"] = a.result["seats"][0]
            entry["unit"] = a.result["unit"]
            entry["decisions"] = [{k: d[k] for k in ("index", "decision", "played", "suggested", "loss", "mark",
                                                      "played_value", "best_value")}
                                  for d in a.result["decisions"]]
            entry["par"] = a.par
        seats.append(entry)
    return {"seats": seats}
