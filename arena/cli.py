"""The ``arena`` command: list games, play matches between bots, check and tell replays."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import sandbox  # the runner is where arena meets the sandbox: its public API only
from arena import analysis, builds, client, compiled, episodes, stats
from arena import replay as replays
from arena.bots import bots_for
from arena.botspec import BUILTIN_PREFIX, BotSpec, BotSpecError, build_plan, built, parse_bot
from arena.cards import MAX_SEED
from arena.games import all_presets, new_match, resolve
from arena.games.base import RuleOptionError
from arena.games.options import describe, rules_to_dict
from arena.protocol import OK, printable
from arena.referee import TimeControl
from arena.runner import build_schedule, run_schedule

SANDBOXES = sandbox.BACKENDS
RESULTS_FORMAT = "kozyr-results"


class UsageError(Exception):
    """A bad command line; the message is the one line that says what to fix."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _positive(name: str, upper: int | None = None):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, not {text!r}") from None
        if value < 1 or (upper is not None and value > upper):
            raise argparse.ArgumentTypeError(f"{name} must be from 1 to {upper}" if upper else
                                             f"{name} must be at least 1, not {value}")
        return value
    return parse


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed must be an integer, not {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError("--seed must be from 0 to 2**64-1")
    return value


def _rule(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"--rule takes key=value (e.g. --rule deck=32), not {text!r}")
    return key.strip(), value.strip()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="arena", description="Kozyr's local runner: the same referee and seeds as the servers.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    sub.add_parser("games", help="list games, presets and their rule options with defaults")

    play = sub.add_parser("play", help="play matches between bots")
    play.add_argument("preset", metavar="GAME", help="a preset, e.g. bura, burkozel (see `arena games`)")
    play.add_argument("bots", metavar="BOT", nargs="+",
                      help="builtin:NAME, a script (.py/.js/executable), a directory or a .zip")
    play.add_argument("--games", type=_positive("--games"), default=1, help="number of deal sequences (default 1)")
    play.add_argument("--seed", type=_seed, help="base seed (default: random, printed)")
    play.add_argument("--duplicate", action="store_true",
                      help="play every game once per rotation of the seats, so card luck cancels out")
    play.add_argument("--concurrency", type=_positive("--concurrency", 64), default=1, help="parallel matches")
    play.add_argument("--rule", type=_rule, action="append", default=[], metavar="KEY=VALUE",
                      help="change a rule option (repeatable)")
    play.add_argument("--move-time", type=_positive("--move-time"), default=TimeControl.move_ms, metavar="MS",
                      help="time per decision in ms (default %(default)s)")
    play.add_argument("--time-bank", type=int, default=TimeControl.bank_ms, metavar="MS",
                      help="per-match overage bank in ms (default %(default)s)")
    play.add_argument("--startup-time", type=_positive("--startup-time"), default=TimeControl.startup_ms,
                      metavar="MS", help="time to answer the hello in ms (default %(default)s)")
    play.add_argument("--sandbox", choices=SANDBOXES, default="bwrap",
                      help="isolation for external bots (default bwrap; unsafe = none)")
    play.add_argument("--replays", type=Path, metavar="DIR", help="write a replay per match into DIR")
    play.add_argument("--json", type=Path, metavar="FILE", help="write results as JSON")
    play.add_argument("--quiet", action="store_true", help="no progress bar and no table")

    rep = sub.add_parser("replay", help="verify a replay by re-running it and print it trick by trick")
    rep.add_argument("file", type=Path, metavar="FILE")
    rep.add_argument("--seat", type=int, help="show only what this seat saw")

    sub.add_parser("showcase", help="play a short match between built-in bots for every preset")

    engines = sub.add_parser("engines", help="compile the game engines with mypyc (make does), or show their state")
    engines.add_argument("action", choices=("status", "build"), nargs="?", default="status",
                         help="status (default): compiled or Python per family, and why; build: compile them")
    engines.add_argument("families", nargs="*", metavar="FAMILY",
                         help=f"families to build (default all: {', '.join(compiled.FAMILIES)})")
    engines.add_argument("--verbose", action="store_true", help="show the compiler's output")
    client.add_commands(sub)
    episodes.add_command(sub)
    analysis.add_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        commands = {"games": cmd_games, "play": cmd_play, "replay": cmd_replay, "showcase": cmd_showcase,
                    "engines": cmd_engines, "episodes": episodes.run, "analyse": analysis.run,
                    **dict.fromkeys(client.COMMANDS, client.run)}
        return commands[args.command](args)
    except (UsageError, BotSpecError, RuleOptionError, replays.ReplayError, ValueError) as err:
        print(f"arena: error: {printable(str(err))}", file=sys.stderr)  # it may quote a file's or bot's text
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0


# ---- arena engines ---------------------------------------------------------------------------------------

def cmd_engines(args: argparse.Namespace) -> int:
    if args.action == "build":
        unknown = [f for f in args.families if f not in compiled.FAMILIES]
        if unknown:
            raise UsageError(f"unknown engine family {unknown[0]!r}; families: {', '.join(compiled.FAMILIES)}")
        try:
            compiled.build(args.families or None, verbose=args.verbose)
        except RuntimeError as exc:
            print(f"arena: the engines stay plain Python: {exc}", file=sys.stderr)  # (our own build's output)
            return 1
    elif args.families:
        raise UsageError("`arena engines status` takes no families")
    print(f"KOZYR_ENGINES={compiled.mode()}; builds in {compiled.BUILD_DIR}")
    for family in compiled.FAMILIES:
        print(f"{family:<8} {compiled.check(family)[1]}")
    return 0


# ---- arena games -----------------------------------------------------------------------------------------

def cmd_games(args: argparse.Namespace) -> int:
    for preset, (game, rules) in all_presets().items():
        print(f"{preset}  (game {game})")
        for row in describe(rules):
            value = json.dumps(row["value"]) if not isinstance(row["value"], str) else row["value"]
            print(f"    {row['name']:<24} {value:<14} allowed: {_allowed(row)}")
    return 0


def _allowed(row: dict[str, Any]) -> str:
    """What --rule accepts for an option (a true/false option's metadata may carry no list of values)."""
    if isinstance(row["value"], bool):
        return "true | false"
    return row["allowed"]


# ---- arena play ------------------------------------------------------------------------------------------

def cmd_play(args: argparse.Namespace) -> int:
    overrides = dict(args.rule)
    game, _ = resolve(args.preset, overrides)
    if args.time_bank < 0:
        raise UsageError("--time-bank must be 0 or more milliseconds")
    time_control = TimeControl(startup_ms=args.startup_time, move_ms=args.move_time, bank_ms=args.time_bank)
    base_seed = args.seed if args.seed is not None else secrets.randbits(64)
    _check_outputs(args)
    matches: list[dict[str, Any]] = []
    interrupted = False
    with _staging(args.bots) as staging:
        specs = [parse_bot(b, staging, sorted(bots_for(game))) for b in args.bots]
        if any(not spec.is_builtin for spec in specs):
            _check_sandbox(args.sandbox)
        specs = [_build(spec, args) for spec in specs]
        schedule = build_schedule(preset=args.preset, overrides=overrides, bots=specs, games=args.games,
                                  base_seed=base_seed, duplicate=args.duplicate, time_control=time_control,
                                  sandbox=args.sandbox)
        try:
            _play_all(schedule, args, matches)
        except KeyboardInterrupt:  # Ctrl-C: what was played is kept and reported
            interrupted = True
    summary = stats.summary(matches)
    # The options changed, typed as the rules hold them (as in replays): "deck": 32, not "32".
    typed = rules_to_dict(resolve(args.preset, overrides)[1])
    results = {"format": RESULTS_FORMAT, "version": 1, "preset": args.preset,
               "rules": {key: typed[key] for key in overrides}, "base_seed": base_seed, "games": args.games,
               "duplicate": args.duplicate, "time": time_control.to_dict(), "interrupted": interrupted,
               "matches": matches, "summary": summary}
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    failures = stats.failures_by_bot(matches)
    if not args.quiet:
        _print_table(args.preset, base_seed, len(matches), summary, failures)
        aborted = stats.aborted_count(matches)
        if aborted:
            print(f"{aborted} match(es) aborted for reasons that are nobody's fault (not scored; see ended_by)")
    if interrupted:
        print(f"arena: interrupted after {len(matches)} of {len(schedule.jobs)} matches; their results are kept",
              file=sys.stderr)
        return 130
    return 1 if failures else 0


# Where built-in bots are "staged": never used (a bug that used it would fail, and write nothing).
_NOWHERE = Path(os.devnull)


@contextlib.contextmanager
def _staging(bots: list[str]) -> Iterator[Path]:
    """The folder the bots' files are copied into: the runner's own in the sandbox's state folder, removed at
    the end or, when the runner is killed first, by the next sandbox start's sweep (sandbox/leftovers.py). A
    run of built-ins only copies nothing, so it makes no folder and never touches the sandbox."""
    if all(bot.startswith(BUILTIN_PREFIX) for bot in bots):
        yield _NOWHERE
        return
    with contextlib.ExitStack() as stack:
        try:
            folder = stack.enter_context(sandbox.owned_folder("arena"))
        except (sandbox.SandboxError, OSError) as err:
            raise UsageError(f"cannot make a folder to copy the bots into: {err}") from None
        yield folder


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse unusable output paths before playing, not after hours of matches."""
    if args.replays is not None:
        try:
            args.replays.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise UsageError(f"--replays {args.replays}: cannot create that directory ({err.strerror})") from None
    if args.json is not None and (args.json.is_dir() or not args.json.parent.is_dir()):
        raise UsageError(f"--json {args.json}: give a file name in an existing directory")


def _build(spec: BotSpec, args: argparse.Namespace) -> BotSpec:
    """A bot sent as source, compiled as the site compiles it (in the sandbox, kept in the build cache); a
    build that fails stops the run with the compiler's messages."""
    if spec.language is None or spec.directory is None:
        return spec
    language = builds.LANGUAGES[spec.language].label
    cache = builds.default_cache()
    plan = build_plan(Path(spec.directory), spec.label)
    from_cache = plan is not None and builds.cached(Path(spec.directory), plan, cache)
    started = time.monotonic()
    try:
        done = built(spec, backend=args.sandbox, cache=cache)
    except builds.BuildError as err:
        raise UsageError(f"{spec.label}: {err}") from None
    if done.build_failure is not None:
        for line in done.build_log:
            print(printable(line), file=sys.stderr)
        raise UsageError(f"{spec.label} did not build ({language}): {done.build_failure}")
    if not args.quiet:
        how = "from the build cache" if from_cache else f"in {time.monotonic() - started:.1f} s"
        print(f"arena: {spec.label}: {language} built {how} ({cache})", file=sys.stderr)
    return done


def _check_sandbox(backend: str) -> None:
    problem = sandbox.backend_available(backend)  # only the backend in use (all of them ran `docker version`)
    if problem:
        raise UsageError(f"--sandbox {backend} cannot run here: {problem}")
    for weakened in sandbox.weakened_guarantees(backend):  # said once, before any match
        print(f"warning: sandbox {backend}: {weakened}", file=sys.stderr)


def _play_all(schedule, args: argparse.Namespace, matches: list[dict[str, Any]]) -> None:
    """Play the schedule, appending each result to ``matches`` as it arrives (so an interrupt keeps them)."""
    progress = None
    if not args.quiet and sys.stderr.isatty():
        from rich.progress import Progress
        progress = Progress(transient=True)
        progress.start()
        task = progress.add_task(f"{args.preset}", total=len(schedule.jobs))
    try:
        wanted = "gzip" if args.replays is not None else None  # compressed where played, or not sent at all
        for result, replay in run_schedule(schedule, args.concurrency, replays=wanted):
            for seat in result["seats"]:
                seat.pop("resources", None)  # measurements vary run to run; the replay keeps them
                seat.pop("stderr_log", None)  # which request a line arrived during depends on timing
            if replay is not None:
                (args.replays / f"{args.preset}-{result['index']:05d}.json.gz").write_bytes(replay)
            matches.append(result)
            if progress is not None:
                progress.advance(task)
    finally:
        if progress is not None:
            progress.stop()


def _print_table(preset: str, base_seed: int, count: int, summary: list[dict[str, Any]],
                 failures: dict[str, int]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{preset}: {count} matches, base seed {base_seed}")
    for heading in ("bot", "score", "W", "D", "L", "Elo ± 95%", "LOS", "failed"):
        table.add_column(heading, justify="left" if heading == "bot" else "right")
    for row in summary:
        score = "-" if row["score"] is None else f"{row['score']:.3f}"
        table.add_row(row["bot"], score, str(row["wins"]), str(row["draws"]), str(row["losses"]),
                      _elo_text(row), "-" if row["los"] is None else f"{100 * row['los']:.1f}%",
                      str(failures.get(row["bot"], 0)))
    Console().print(table)


def _elo_text(row: dict[str, Any]) -> str:
    if row["score"] is None:
        return "-"
    if row["elo"] is None:
        return "+inf" if row["score"] >= 1 else "-inf"
    low = "-inf" if row["elo_low"] is None else f"{round(row['elo_low']):+d}"
    high = "+inf" if row["elo_high"] is None else f"{round(row['elo_high']):+d}"
    return f"{round(row['elo']):+d} [{low}, {high}]"  # integers: no "-0"


# ---- arena replay ----------------------------------------------------------------------------------------

def cmd_replay(args: argparse.Namespace) -> int:
    replay = replays.load(args.file)
    replays.rebuild(replay)
    for line in replays.narrate(replay, seat=args.seat):
        print(line)
    print(f"replay verified: {len(replay['actions'])} actions re-run to the recorded result")
    return 0


# ---- arena showcase (make run) ---------------------------------------------------------------------------

def cmd_showcase(args: argparse.Namespace) -> int:
    """Every preset: the built-in greedy bot against random, one duplicate pair each."""
    print("Kozyr showcase: built-in greedy against random on every preset, every seat rotation, seed 2026")
    for preset, (game, rules) in all_presets().items():
        names = sorted(bots_for(game))
        sides = len(new_match(rules, 0).outcome()["teams"])  # one bot per team, or per seat
        lineup = ["greedy"] + ["random"] * (sides - 1)
        specs = [parse_bot(f"builtin:{n}", _NOWHERE, names) for n in lineup]
        schedule = build_schedule(preset=preset, overrides={}, bots=specs, games=1, base_seed=2026,
                                  duplicate=True, time_control=TimeControl(), sandbox="unsafe")
        for result, _ in run_schedule(schedule, 1):
            seats = ", ".join(f"{s['bot']}={p}" for s, p in zip(result["seats"], result["points"], strict=True))
            winners = sorted({s["bot"] for s, r in zip(result["seats"], result["ranks"], strict=True) if r == 1})
            print(f"  {preset:<15} {result['points_kind']} points: {seats}; deals {result['deals']}; "
                  f"winner: {' & '.join(winners)}")
            if any(s["verdict"] != OK for s in result["seats"]):
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
