"""The `arena` command line: listing, playing, replays, and one clear line for every bad argument."""

from __future__ import annotations

import gzip
import json
import zipfile

import pytest

from arena.cli import main
from tests.arena.conftest import PROTOCOL_BOTS


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_it_lists_every_preset_with_its_options(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0
    for preset in ("bura", "bura-3p", "burkozel", "burkozel-pairs", "echki-6"):
        assert f"\n{preset}  (game bura)" in "\n" + out
    assert "false_claim" in out and "lose_double" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["play", "poker", "builtin:random", "builtin:random"], "unknown preset 'poker'"),
    (["play", "bura", "builtin:random", "builtin:random", "--rule", "colour=red"], "unknown option 'colour'"),
    (["play", "bura", "builtin:random", "builtin:random", "--rule", "deck=52"], "option 'deck'"),
    (["play", "bura", "builtin:random", "builtin:random", "--rule", "deck"], "--rule takes key=value"),
    (["play", "bura", "builtin:random", "builtin:random", "--games", "0"], "--games must be at least 1"),
    (["play", "bura", "builtin:random", "builtin:random", "--games", "many"], "--games must be a whole number"),
    (["play", "bura", "builtin:random", "builtin:random", "--seed", "-1"], "--seed must be from 0"),
    (["play", "bura", "builtin:random", "builtin:random", "--concurrency", "100"], "--concurrency must be from 1"),
    (["play", "bura", "builtin:random", "builtin:random", "--sandbox", "chroot"], "invalid choice: 'chroot'"),
    (["play", "bura", "builtin:random", "builtin:random", "--time-bank", "-5"], "--time-bank must be 0 or more"),
    (["play", "bura", "builtin:genius", "builtin:random"], "unknown built-in bot 'genius'"),
    (["play", "bura", "no/such/bot.py", "builtin:random"], "neither builtin:NAME nor an existing file"),
    (["play", "bura", "builtin:random"], "give 2 bots, not 1"),
    (["play", "burkozel-pairs", "builtin:random", "builtin:random", "builtin:random"], "or 2, one per team"),
    (["replay", "no-such-file.json"], "cannot read no-such-file.json"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_every_bad_argument_gets_one_line_that_says_what_to_fix(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("arena: error: ")
    assert message in err


def test_it_plays_matches_and_writes_results_and_replays(capsys, tmp_path):
    results = tmp_path / "results.json"
    code, out, _ = run(capsys, "play", "bura", "builtin:greedy", "builtin:random", "--games", "3", "--seed", "4",
                       "--json", str(results), "--replays", str(tmp_path / "replays"))
    assert code == 0 and "builtin:greedy" in out and "Elo" in out
    data = json.loads(results.read_text())
    assert len(data["matches"]) == 3 and data["base_seed"] == 4
    match = data["matches"][0]
    assert {"seed", "seats", "ranks", "points"} <= set(match)
    assert {s["verdict"] for s in match["seats"]} == {"ok"}
    assert [row["bot"] for row in data["summary"]] == ["builtin:greedy", "builtin:random"]
    row = data["summary"][0]
    assert row["wins"] + row["draws"] + row["losses"] == 3 and 0 <= row["score"] <= 1
    replay = json.loads(gzip.decompress((tmp_path / "replays" / "bura-00000.json.gz").read_bytes()))
    assert replay["seed"] == match["seed"]

    code, out, _ = run(capsys, "replay", str(tmp_path / "replays" / "bura-00000.json.gz"))
    assert code == 0 and "replay verified" in out and "deal_end" in out


def test_duplicate_play_gives_both_seatings_the_same_deal(capsys, tmp_path):
    code, _, _ = run(capsys, "play", "bura", "builtin:greedy", "builtin:random", "--games", "2", "--duplicate",
                     "--seed", "9", "--quiet", "--replays", str(tmp_path), "--json", str(tmp_path / "r.json"))
    assert code == 0
    matches = json.loads((tmp_path / "r.json").read_text())["matches"]
    assert [(m["game_number"], m["rotation"]) for m in matches] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for first, second in ((0, 1), (2, 3)):
        a, b = matches[first], matches[second]
        assert a["seed"] == b["seed"]
        assert [s["bot"] for s in a["seats"]] == [s["bot"] for s in reversed(b["seats"])]
        deal_a = json.loads(gzip.decompress((tmp_path / f"bura-{first:05d}.json.gz").read_bytes()))["events"][0]
        deal_b = json.loads(gzip.decompress((tmp_path / f"bura-{second:05d}.json.gz").read_bytes()))["events"][0]
        assert deal_a == deal_b  # same hands per seat, same trump: the bots swapped seats, not cards


def test_concurrency_does_not_change_a_single_byte(capsys, tmp_path):
    outputs = []
    for k in ("1", "2"):
        run(capsys, "play", "burkozel", "builtin:greedy", "builtin:random", "--games", "3", "--seed", "3",
            "--quiet", "--concurrency", k, "--json", str(tmp_path / f"r{k}.json"), "--replays", str(tmp_path / k))
        outputs.append(((tmp_path / f"r{k}.json").read_bytes(),
                        [p.read_bytes() for p in sorted((tmp_path / k).iterdir())]))
    assert outputs[0] == outputs[1]


def test_a_tampered_replay_is_rejected_with_a_clear_error(capsys, tmp_path):
    run(capsys, "play", "bura", "builtin:greedy", "builtin:random", "--seed", "2", "--quiet",
        "--replays", str(tmp_path))
    path = tmp_path / "bura-00000.json.gz"
    replay = json.loads(gzip.decompress(path.read_bytes()))
    replay["result"]["points"] = [0, 0]
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(replay))
    code, _, err = run(capsys, "replay", str(forged))
    assert code == 2 and "recorded points" in err


def test_external_bots_run_from_a_script_a_directory_and_a_zip(capsys, tmp_path):
    source = (PROTOCOL_BOTS / "misbehave.py").read_text().replace("MODE = sys.argv[1]", "MODE = 'fair'")
    script = tmp_path / "fair.py"
    script.write_text(source)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "main.py").write_text(source)
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("mybot/main.py", source)
    for bot in (script, folder, archive):
        code, _, err = run(capsys, "play", "bura", str(bot), "builtin:random", "--seed", "1", "--quiet",
                           "--sandbox", "unsafe", "--json", str(tmp_path / "r.json"))
        assert code == 0, err
        seats = json.loads((tmp_path / "r.json").read_text())["matches"][0]["seats"]
        assert {s["verdict"] for s in seats} == {"ok"}


def test_a_failing_bot_makes_the_exit_status_non_zero(capsys, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nsys.exit(4)\n")
    code, out, _ = run(capsys, "play", "bura", str(bad), "builtin:random", "--seed", "1", "--sandbox", "unsafe")
    assert code == 1 and "failed" in out


def test_unusable_output_paths_are_refused_before_any_match_is_played(capsys, tmp_path):
    (tmp_path / "a-file").write_text("")
    in_a_directory = "give a file name in an existing directory"
    for option, path, message in (("--replays", tmp_path / "a-file", "cannot create that directory"),
                                  ("--json", tmp_path / "missing" / "r.json", in_a_directory),
                                  ("--json", tmp_path, in_a_directory)):
        code, out, err = run(capsys, "play", "bura", "builtin:greedy", "builtin:random", option, str(path))
        assert code == 2 and err.count("\n") == 1 and f"arena: error: {option} {path}: {message}" in err
        assert out == ""


def _damage(data: bytes) -> bytes:
    flipped = bytearray(data)
    flipped[data.index(b"import")] ^= 1
    return bytes(flipped)


def test_a_damaged_zip_is_one_line_naming_the_problem(capsys, tmp_path):
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("main.py", "import sys\n")
    archive.write_bytes(_damage(archive.read_bytes()))
    code, _, err = run(capsys, "play", "bura", str(archive), "builtin:random", "--sandbox", "unsafe")
    assert code == 2 and err.count("\n") == 1 and "the zip cannot be unpacked (Bad CRC-32" in err


def test_a_zipped_folder_may_hold_a_folder_of_its_own_name(capsys, tmp_path):
    source = (PROTOCOL_BOTS / "misbehave.py").read_text().replace("MODE = sys.argv[1]", "MODE = 'fair'")
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("bot/main.py", source)
        z.writestr("bot/bot/helper.py", "")
    code, _, err = run(capsys, "play", "bura", str(archive), "builtin:random", "--sandbox", "unsafe", "--quiet")
    assert code == 0, err


@pytest.mark.parametrize(("members", "message"), [
    ({"../escape.py": "x"}, "points outside the bot"),
    ({"/etc/cron.d/escape": "x"}, "points outside the bot"),
    ({"readme.txt": "no entry point"}, "no entry point"),
])
def test_unsafe_or_unusable_zips_are_refused(capsys, tmp_path, members, message):
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    code, _, err = run(capsys, "play", "bura", str(archive), "builtin:random")
    assert code == 2 and message in err


def test_duplicate_team_play_swaps_the_partnerships_once(capsys, tmp_path):
    code, _, _ = run(capsys, "play", "burkozel-pairs", "builtin:greedy", "builtin:random", "--duplicate",
                     "--seed", "5", "--quiet", "--json", str(tmp_path / "r.json"))
    assert code == 0
    matches = json.loads((tmp_path / "r.json").read_text())["matches"]
    assert [[s["bot"] for s in m["seats"]] for m in matches] == [
        ["builtin:greedy", "builtin:random", "builtin:greedy", "builtin:random"],
        ["builtin:random", "builtin:greedy", "builtin:random", "builtin:greedy"],
    ]


def test_external_bots_run_under_bwrap_by_default_and_the_replay_keeps_the_sandbox_report(capsys, tmp_path):
    script = tmp_path / "fair.py"
    script.write_text((PROTOCOL_BOTS / "misbehave.py").read_text().replace("MODE = sys.argv[1]", "MODE = 'fair'"))
    code, _, err = run(capsys, "play", "bura", str(script), "builtin:random", "--seed", "1", "--quiet",
                       "--replays", str(tmp_path / "replays"))
    assert code == 0, err
    replay = json.loads(gzip.decompress((tmp_path / "replays" / "bura-00000.json.gz").read_bytes()))
    external = replay["verdicts"][0]["resources"]
    assert external["backend"] == "bwrap" and external["outcome"] == "ok"
    assert replay["verdicts"][1]["resources"] is None  # the built-in bot runs in-process


def test_an_unavailable_sandbox_is_refused_up_front(capsys, tmp_path):
    import sandbox

    reason = sandbox.backends_available()["docker"]
    if reason is None:
        pytest.skip("a Docker engine runs here, so the docker backend is available")
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    code, _, err = run(capsys, "play", "bura", str(script), "builtin:random", "--sandbox", "docker")
    assert code == 2 and f"--sandbox docker cannot run here: {reason}" in err


def test_self_play_shows_no_score_instead_of_minus_infinity(capsys):
    code, out, _ = run(capsys, "play", "bura", "builtin:random", "builtin:random", "--games", "2", "--seed", "1")
    assert code == 0 and "inf" not in out and "0.000" not in out


def test_external_bots_give_the_same_results_and_replays_at_any_concurrency(capsys, tmp_path):
    script = tmp_path / "fair.py"
    script.write_text((PROTOCOL_BOTS / "misbehave.py").read_text().replace("MODE = sys.argv[1]", "MODE = 'fair'"))
    outputs = []
    for k in ("1", "2", "2"):
        out = tmp_path / f"run{len(outputs)}"
        code, _, err = run(capsys, "play", "burkozel", str(script), "builtin:random", "--games", "2", "--duplicate",
                           "--seed", "8", "--quiet", "--concurrency", k, "--json", str(out) + ".json",
                           "--replays", str(out))
        assert code == 0, err
        replays = []
        for path in sorted(out.iterdir()):
            replay = json.loads(gzip.decompress(path.read_bytes()))
            for verdict in replay["verdicts"]:
                verdict.pop("resources")  # CPU time and memory are measurements, documented as varying
            replays.append(replay)
        outputs.append(((tmp_path / f"run{len(outputs)}.json").read_bytes(), replays))
    assert outputs[0] == outputs[1] == outputs[2]


def test_ctrl_c_keeps_the_results_of_the_matches_already_finished(capsys, tmp_path, monkeypatch):
    import arena.cli
    from arena.runner import run_schedule as real_run_schedule

    def interrupted_after_two(schedule, concurrency, **kwargs):
        for i, item in enumerate(real_run_schedule(schedule, concurrency, **kwargs)):
            if i == 2:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(arena.cli, "run_schedule", interrupted_after_two)
    code, out, err = run(capsys, "play", "bura", "builtin:greedy", "builtin:random", "--games", "5", "--seed", "3",
                         "--json", str(tmp_path / "r.json"), "--replays", str(tmp_path / "replays"))
    assert code == 130 and "interrupted after 2 of 5 matches" in err
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["interrupted"] is True and len(data["matches"]) == 2
    assert sum(row["wins"] + row["draws"] + row["losses"] for row in data["summary"]) == 4
    assert len(list((tmp_path / "replays").iterdir())) == 2 and "builtin:greedy" in out


def test_the_results_file_holds_typed_rule_values_as_replays_do(capsys, tmp_path):
    code, _, _ = run(capsys, "play", "bura", "builtin:greedy", "builtin:random", "--rule", "deck=32", "--rule",
                     "hand=4", "--quiet", "--seed", "1", "--json", str(tmp_path / "r.json"))
    assert code == 0
    assert json.loads((tmp_path / "r.json").read_text())["rules"] == {"deck": 32, "hand": 4}


def test_arena_games_lists_the_allowed_values_of_every_option(capsys):
    _, out, _ = run(capsys, "games")
    rows = [line for line in out.splitlines() if line.startswith("    ")]
    assert rows and all("allowed: " in row for row in rows)
    assert not [row for row in rows if "see the rules docs" in row]
    assert any(row.split()[0] == "teams" and row.endswith("allowed: true | false") for row in rows)


def test_only_the_backend_in_use_is_probed(capsys, tmp_path, monkeypatch):
    import sandbox

    def everything():
        raise AssertionError("probed every backend")

    monkeypatch.setattr(sandbox, "backends_available", everything)
    script = tmp_path / "fair.py"
    script.write_text((PROTOCOL_BOTS / "misbehave.py").read_text().replace("MODE = sys.argv[1]", "MODE = 'fair'"))
    code, _, err = run(capsys, "play", "bura", str(script), "builtin:random", "--sandbox", "unsafe", "--quiet")
    assert code == 0, err


def test_a_replay_with_control_characters_prints_none(capsys, tmp_path):
    from arena import replay as replays
    from arena.games import resolve
    from arena.referee import play_match
    from tests.arena.conftest import builtin

    _, rules = resolve("bura")
    record = play_match(rules, 4, [builtin("bura", "greedy", 0), builtin("bura", "random", 1)], preset="bura",
                        labels=["\x1b]0;owned\x07bot", "\x1b[2J"])
    replays.save(record.replay, tmp_path / "r.json.gz")
    code, out, _ = run(capsys, "replay", str(tmp_path / "r.json.gz"))
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "\\x1b]0;owned" in out


def test_ctrl_c_on_the_whole_process_group_with_a_pool_stops_promptly_and_keeps_the_results(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    # 20,000 matches outlast the test many times over (a few hundred a second), and their schedule is built in
    # well under a second (100,000 took 3.4 s before the first match began).
    command = [sys.executable, "-m", "arena.cli", "play", "bura", "builtin:greedy", "builtin:random", "--games",
               "20000", "--concurrency", "2", "--seed", "1", "--quiet", "--json", str(tmp_path / "r.json"),
               "--replays", str(tmp_path / "replays")]
    process = subprocess.Popen(command, start_new_session=True, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (
                (tmp_path / "replays").is_dir() and any((tmp_path / "replays").iterdir())):
            time.sleep(0.1)
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: the parent and its pool workers alike
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["interrupted"] is True and 0 < len(data["matches"]) < 20000
    assert len(list((tmp_path / "replays").iterdir())) >= len(data["matches"])


def test_every_byte_of_a_zip_damaged_in_turn_gives_a_bot_error_never_a_traceback(tmp_path):
    # The whole class of damaged archives, not a list of examples: each byte of a small zip (headers, central
    # directory, data, end record) set to three other values in turn. One in the central directory's "version
    # needed" once escaped as NotImplementedError.
    import io

    from arena.botspec import BotSpecError, stage_bot

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("main.py", "import sys\nprint('ready')\n")
        z.writestr("lib/util.py", "X = 1\n")
    good = buffer.getvalue()
    archive = tmp_path / "bot.zip"
    escaped = []
    for position in range(len(good)):
        for value in (0x00, 0xFF, good[position] ^ 0x10):
            damaged = bytearray(good)
            damaged[position] = value
            archive.write_bytes(bytes(damaged))
            target = tmp_path / f"staged-{position}-{value}"
            try:
                stage_bot(archive, target)
            except BotSpecError as error:
                assert "\n" not in str(error)
            except Exception as error:  # what the test looks for
                escaped.append((position, value, repr(error)))
    assert escaped == []
