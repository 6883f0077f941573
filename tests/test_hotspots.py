"""``python -m benchmarks.hotspots`` (a developer's profiler of the JIT code): its parsing of perf's, the maps' and
objdump's text. Sampling needs perf and the right to trace, which CI has not: it is not run here."""

from __future__ import annotations

from benchmarks import hotspots

MAPS = """\
55d0c0a00000-55d0c0a01000 r-xp 00000000 08:01 123  /usr/bin/python3.11
7f00aa000000-7f00aa010000 r-xp 00000000 00:00 0
7f00ab000000-7f00ab001000 rw-p 00000000 00:00 0
"""

OBJDUMP = """\

/tmp/x.bin:     file format binary

Disassembly of section .data:

00007f00aa000000 <.data>:
    7f00aa000000:\t48 89 c3             \tmov    %rax,%rbx
    7f00aa000003:\tf3 48 0f bd c0       \tlzcnt  %rax,%rax
    7f00aa000008:\t0f 1f 80 00 00 00 00 \tnopl   0x0(%rax)
    7f00aa00000f:\t00
"""


def test_samples_regions_and_instructions_are_read():
    counts = hotspots.sample_counts("7f00aa000003\n7f00aa000003\n 7f00aa000000\n55d0c0a00010\n")
    assert counts == {0x7F00AA000003: 2, 0x7F00AA000000: 1, 0x55D0C0A00010: 1}
    assert hotspots.jit_regions(MAPS) == [(0x7F00AA000000, 0x7F00AA010000)]  # anonymous and executable only
    code = hotspots.disassembly(OBJDUMP)
    assert code == {
        0x7F00AA000000: "mov    %rax,%rbx",
        0x7F00AA000003: "lzcnt  %rax,%rax",
        0x7F00AA000008: "nopl   0x0(%rax)",
    }


def test_the_report_puts_the_hottest_stretch_first():
    counts = hotspots.sample_counts("7f00aa000003\n" * 3 + "7f00aa000100\n")
    assert hotspots.hot_buckets(counts) == [(0x7F00AA000000, 3), (0x7F00AA000100, 1)]
    text = hotspots.report(counts, hotspots.disassembly(OBJDUMP), top=2, show=1)
    assert "4 samples" in text and "75.0%" in text
    assert "     3  0x7f00aa000003  lzcnt  %rax,%rax" in text
