"""The diff view (issue 12 §4): in the Snapshots tab, m marks snapshot A
and = opens snapshot B with the census buckets by constructor that grew
or shrank from A, row by row what `heapscope diff A B --json` gives; b
diffs again by other census keys (one or two levels, as --by), and the
eras B has and A does not follow the buckets; on a live debuggee, P
after resume and pause diffs with the pause before (the cache's
recording of it)."""
import json
import os
import re
import subprocess

import harness
from harness import TuiCase

COMMON = ("--closures", "3000", "--seed", "7", "--profiled")
A_ARGS = COMMON + ("--leak-count", "100", "--eras", "4")
B_ARGS = COMMON + ("--leak-count", "500", "--eras", "6")
ROW = re.compile(r"^[ >]?\s*([+-]\d+)\s+([+-]\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)  (\S.*?)\s*$")
# either level: the key after 2 spaces (first) or 6 (second)
ROW2 = re.compile(r"^[ >]?\s*([+-]\d+)\s+([+-]\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)(  +)(\S.*?)\s*$")
ERAS = re.compile(r"Eras B has and A does not: (\d+), (\d+) closures?, (\d+) bytes")
GROW = 40  # --grow-per-pause
SPAN, CONS = "main:Main:Span", "ghc-prim:GHC.Types::"
ERA = re.compile(r"^[ >]?\s+era (\d+): (\d+) closures?, (\d+) bytes\s*$")


def hs(*args):
    out = subprocess.run([harness.HEAPSCOPE, *args], capture_output=True, text=True,
                         timeout=180, check=True)
    return out.stdout


def rows(screen):
    return [(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)),
             int(m.group(5)), int(m.group(6)), m.group(7))
            for m in map(ROW.match, screen.lines[1:]) if m]


def rows2(screen):
    """[(level, bytes delta, count delta, count A, count B, bytes A, bytes B, key)]."""
    return [(1 if len(m.group(7)) < 6 else 2, int(m.group(1)), int(m.group(2)),
             int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6)), m.group(8))
            for m in map(ROW2.match, screen.lines[1:]) if m]


class Diff(TuiCase):
    def snapshots(self, a_args=A_ARGS, b_args=B_ARGS):
        """Snapshots a-side and b-side of two debuggees, in the snapshot directory."""
        files = []
        for name, args in (("a", a_args), ("b", b_args)):
            d = self.debuggee(name="42%d-%s" % (len(files), name), args=args)
            path = os.path.join(self.home.snapshots, name + "-side.heapscope")
            hs("snapshot", d.socket, "-o", path)
            d.stop()
            files.append(path)
        return files

    def diff_of_the_snapshots(self):
        """The explorer with the diff view of b-side from a-side (m, then =)."""
        t = self.tui(height=40, width=160)
        t.wait_text("Debuggees (", what="the picker")
        t.keys("Tab")
        t.wait_text("b-side.heapscope", what="the snapshots")
        t.select("a-side.heapscope")
        t.keys("m")
        t.wait_text("marked a-side.heapscope as A", what="the mark")
        t.select("b-side.heapscope")
        t.keys("=")
        return t

    def test_marked_snapshot_diffed_with_the_opened_one(self):
        files = self.snapshots()
        want = json.loads(hs("diff", *files, "--json"))
        t = self.diff_of_the_snapshots()
        s = t.wait(lambda s: "Diff by constructor from a-side.heapscope" in s.lines[0] and rows(s),
                   "the diff view", timeout=120)
        self.assertIn("%d changed, %d unchanged" % (want["changed"], want["unchanged"]), s.lines[0])
        shown = rows(s)
        expect = [(r["bytes_delta"], r["count_delta"], r["count_a"], r["count_b"], r["bytes_a"],
                   r["bytes_b"], r["key"]) for r in want["rows"]]
        self.assertEqual(shown, expect[:len(shown)], s.dump())
        self.assertGreaterEqual(len(shown), min(len(expect), 10))
        # Back: the roots of B, a snapshot opened as Enter opens it
        t.keys("M-Left")
        t.wait(lambda s: "Saved objects and GC roots" in s.lines[0], "B's roots")

    def test_other_keys_and_the_eras_b_has_and_a_does_not(self):
        files = self.snapshots()
        want = json.loads(hs("diff", *files, "--by", "constructor,era", "--json"))
        self.assertTrue(want["eras"]["new"], "B has eras A does not")
        t = self.diff_of_the_snapshots()
        t.wait(lambda s: "Diff by constructor from" in s.lines[0], "the diff view", timeout=120)
        t.keys("b")
        t.wait_text("diff by (A or A,B): constructor", what="the keys prompt")
        t.type("constructor,era")  # replaces the default
        t.keys("Enter")
        s = t.wait(lambda s: "Diff by constructor, era from a-side.heapscope" in s.lines[0]
                   and rows2(s), "the diff by two keys", timeout=120)
        self.assertIn("%d changed, %d unchanged" % (want["changed"], want["unchanged"]), s.lines[0])
        self.assertIn("view 3/3", s.lines[0], "a new view: Back returns to the diff before")
        self.assertIn("; %d new eras; b: other keys" % len(want["eras"]["new"]), s.text, s.dump())
        expect = []
        for r in want["rows"]:
            for level, x in [(1, r)] + [(2, c) for c in r["children"]]:
                expect.append((level, x["bytes_delta"], x["count_delta"], x["count_a"],
                               x["count_b"], x["bytes_a"], x["bytes_b"], x["key"]))
        shown = rows2(s)
        self.assertGreater(len(shown), 20, s.dump())
        self.assertEqual(shown, expect[:len(shown)], s.dump())
        self.assertTrue(any(r[0] == 2 for r in shown), "second-level rows:\n" + s.dump())
        # the last rows: the eras B has and A does not, as the CLI counts them
        t.keys("G")
        s = t.wait(lambda s: ERAS.search(s.text), "the eras B has and A does not")
        new = want["eras"]["new"]
        self.assertEqual(tuple(map(int, ERAS.search(s.text).groups())),
                         (len(new), sum(e["count"] for e in new), sum(e["bytes"] for e in new)),
                         s.dump())
        self.assertEqual([tuple(map(int, m.groups())) for m in map(ERA.match, s.lines) if m],
                         [(e["era"], e["count"], e["bytes"]) for e in new], s.dump())
        # Enter on an era: B's closures of that era with their retainers
        self.assertIn("era %d:" % new[-1]["era"], s.selected_text(), s.dump())
        t.keys("Enter")
        s = t.wait_regex(r"Retainers of Era range %d" % new[-1]["era"], timeout=60,
                         what="the era's retainers")
        self.assertTrue(s.search(r"(\d+) items/"), s.dump())
        # the next diff keeps the keys
        t.keys("M-Left", "M-Left")
        t.wait(lambda s: "Diff by constructor from" in s.lines[0], "the first diff again")
        t.keys("b")
        t.wait_text("diff by (A or A,B): constructor,era", what="the keys kept")
        t.type("bogus")
        t.keys("Enter")
        s = t.wait_text("'bogus'?", what="what is wrong with the keys")
        self.assertIn("Diff by constructor from", s.lines[0], "the view stays:\n" + s.dump())
        # b outside a diff view says where diffs come from
        t.keys("C-s")
        t.wait(lambda s: "Saved objects and GC roots" in s.lines[0], "the roots")
        t.keys("b")
        t.wait_text("not in a diff view", what="b outside a diff view")

    def test_eras_not_compared_when_a_has_none(self):
        files = self.snapshots(a_args=("--closures", "3000", "--seed", "7"))  # not profiled
        want = json.loads(hs("diff", *files, "--json"))
        self.assertFalse(want["eras"]["compared"])
        t = self.diff_of_the_snapshots()
        s = t.wait(lambda s: "Diff by constructor from a-side.heapscope" in s.lines[0],
                   "the diff view", timeout=120)
        self.assertIn("eras not compared", s.lines[-1], s.dump())
        t.keys("G")  # the last row says why
        # (as far as the row's width shows it: the reason ends with advice)
        s = t.wait_text(("Eras not compared: " + want["eras"]["reason"])[:150],
                        what="why the eras were not compared")
        # a diff by era is refused as the CLI refuses it, and its keys are not kept
        r = subprocess.run([harness.HEAPSCOPE, "diff", *files, "--by", "era"],
                           capture_output=True, text=True, timeout=180)
        self.assertEqual(r.returncode, 1, r.stderr)
        why = r.stderr.split(": ")[-1].strip()
        t.keys("b")
        t.wait_text("diff by (A or A,B): constructor", what="the keys prompt")
        t.type("era")
        t.keys("Enter")
        s = t.wait_text("diff: " + why, timeout=60, what="why a diff by era cannot be")
        self.assertIn("view 2/2", s.lines[0], "no new view:\n" + s.dump())
        t.keys("b")
        t.wait_text("diff by (A or A,B): constructor", what="the keys of the last diff")

    def test_diff_with_the_previous_pause(self):
        # the debuggee allocates GROW Span closures, each in a new (:) cell,
        # at every resume: exactly what the diff must show
        d = self.debuggee(args=harness.LEAK_ARGS + ("--grow-per-pause", str(GROW)))
        by_key = dict(d.plan["by_constructor"], **d.plan["by_type"])  # the census's keys
        span, cons = d.plan["by_constructor"][SPAN], d.plan["by_constructor"][CONS]
        t = self.paused(d, height=40, width=160)
        t.keys("P")  # no pause before this one
        t.wait_text("no recorded pause of this debuggee", what="why there is no diff yet")
        t.keys("r")
        t.wait_regex(r"(?i)running", timeout=120, what="the running screen")
        t.keys("p")
        t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots after the second pause")
        t.keys("P")
        s = t.wait(lambda s: "Diff by constructor from the previous pause" in s.lines[0],
                   "the diff with the previous pause", timeout=120)
        self.assertIn("2 changed, %d unchanged" % (len(by_key) - 2), s.lines[0], s.dump())
        size = span["bytes"] // span["count"]  # Span and (:) are both 2 words and a header
        self.assertEqual(sorted(rows(s)), sorted(
            [(GROW * size, GROW, c["count"], c["count"] + GROW, c["bytes"], c["bytes"] + GROW * size,
              key) for key, c in ((SPAN, span), (CONS, cons))]), s.dump())


if __name__ == "__main__":
    harness.main()
