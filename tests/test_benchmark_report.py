"""The benchmark report (``python -m benchmarks.run``) prints every target of issue 11 from its measurements.

The measurements themselves take minutes and depend on the machine, so they never run here; this checks the
report over the numbers of one recorded ``--quick`` run (``tests/data/benchmark-quick.json``), so that a change of
a measurement's shape cannot leave the report broken until someone next benchmarks.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from benchmarks import run

RECORDED = json.loads((Path(__file__).parent / "data" / "benchmark-quick.json").read_text())


def targets(results: dict) -> dict[str, list[str]]:
    return {row[0]: row for row in run.target_rows(results)}


def test_every_target_of_the_issue_is_reported():
    rows = targets(RECORDED)
    names = " | ".join(rows)
    for needed in (
        "Scopa 2p greedy, 1 thread (shared kernels): games/s over the baseline kernel's",
        "Scopa 2p random, 1 thread (shared kernels): games/s over the baseline kernel's",
        "kaszino greedy",
        "skopa random",
        "foracio greedy",
        "escoba random",
        "2 threads over 1 thread",
        "whole process / kernels alone",
        "warm start",
        "cold compile of scopa alone",
        "cold compile of all four games",
        "lookahead decisions/s",
        "mc decisions/s",
        "peak memory flat",
    ):
        assert needed in names
    measured = [row for row in rows.values() if row[2] != "not measured"]
    assert all(row[-1].rstrip("*") in ("PASS", "FAIL") for row in measured)
    # the recorded run is from before Escoba: its rows say so instead of failing
    assert rows["escoba greedy, 1 thread: deals/s over Scopa's"][2:] == ["not measured", "n/a"]


def test_a_verdict_follows_the_number():
    results = copy.deepcopy(RECORDED)
    scopa = results["one_thread"]["policies"]["greedy"]["scopa"]
    scopa["vs_baseline"] = run.TARGET_BASELINE_RATIO
    assert (
        targets(results)["Scopa 2p greedy, 1 thread (shared kernels): games/s over the baseline kernel's"][-1] == "PASS"
    )
    scopa["vs_baseline"] = run.TARGET_BASELINE_RATIO - 0.001
    assert (
        targets(results)["Scopa 2p greedy, 1 thread (shared kernels): games/s over the baseline kernel's"][-1] == "FAIL"
    )


def test_without_the_baseline_kernel_its_targets_are_not_applicable(capsys):
    results = copy.deepcopy(RECORDED)
    results["one_thread"]["baseline_found"] = False
    for entry in results["one_thread"]["policies"].values():
        entry.pop("baseline")
        entry["scopa"].pop("vs_baseline")
    rows = targets(results)
    assert rows["Scopa 2p random, 1 thread (shared kernels): games/s over the baseline kernel's"][2:] == [
        "baseline not found",
        "n/a",
    ]
    run.report(results)
    printed = capsys.readouterr().out
    assert "baseline kernel not found" in printed and "Targets of the issue" in printed


def test_the_report_prints_each_section(capsys):
    run.report(copy.deepcopy(RECORDED))
    printed = capsys.readouterr().out
    for title in (
        "cold: scopa alone",
        "One thread, one process at a time, interleaved",
        "the whole process next to the kernels alone",
        "throughput of play_chunk",
        "decisions per second",
        "Peak memory",
    ):
        assert title in printed


def test_the_report_says_which_kernels_ran(capsys):
    """Runs from after the specialised kernels (``simcore.kernels.frozen``) name them in the rows they measured."""
    results = copy.deepcopy(RECORDED)
    results["cold_compile"]["shared"] = {"first_chunk_s": 30.0, "import_s": 0.5}
    results["one_thread"]["specialised"] = {"scopa": True}
    for row in results["policies"]:
        row["specialised"] = row["policy"] in ("lookahead", "mc")
    greedy = "Scopa 2p greedy, 1 thread (specialised kernels): games/s over the baseline kernel's"
    assert greedy in targets(results)
    run.report(results)
    printed = capsys.readouterr().out
    assert "scopa alone, shared kernels (a run of a varied rule set" in printed
    assert "scopa, specialised kernels" in printed
    assert "specialised" in printed and "shared" in printed


def test_the_one_thread_section_shows_each_process(capsys):
    """A run over several fresh processes says so and prints each process's median Scopa ratio."""
    results = copy.deepcopy(RECORDED)
    results["one_thread"]["processes"] = 3
    for entry in results["one_thread"]["policies"].values():
        entry["scopa"]["vs_baseline_by_process"] = [0.797, 0.730, 0.828]
    run.report(results)
    printed = capsys.readouterr().out
    assert "in 3 fresh processes" in printed
    assert "Scopa greedy over the baseline, the median of each process: 0.797, 0.730, 0.828" in printed
