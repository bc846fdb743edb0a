"""Profiling headers in roots, show, find and retainers (issue 11, §4): the
cost-centre stack with its cost centre's label, module and location, and
the header word by profiling mode (era, LDV state, retainer set), in text
and JSON, checked against what the synthetic debuggee's generator planted
in each of its profiled modes (--prof-mode); nothing of it when the
debuggee is not profiled (run by meson test)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import test_cli  # noqa: E402  (same helpers, same binary)
from test_cli import Debuggee, request_counts, run  # noqa: E402

COMMON = ("--closures", "6000", "--eras", "6", "--leak-count", "300", "--leak-era", "2",
          "--seed", "11")


def want_json(step, mode):
    """The "profiling" object heapscope must print for a planted path step."""
    cc = step["cost_centre"]
    want = {"mode": mode, "ccs": step["ccs"],
            "cost_centre": {"label": cc["label"], "module": cc["module"],
                            "location": cc["location"]}}
    if mode == "era":
        want["era"] = step["era"]
    elif mode == "ldv":
        ldv = step["ldv"]
        want["ldv"] = {"created": ldv["created"], "used": ldv["used"],
                       "last_used": ldv["last_used"] if ldv["used"] else None}
    elif mode == "retainer":
        want["retainer"] = step["retainer"]
    return want


def got_json(closure):
    """The planted keys of a printed "profiling" object (id, is_caf and the
    raw word are checked apart)."""
    p = closure["profiling"]
    got = {k: p[k] for k in ("mode", "ccs", "era", "ldv", "retainer") if k in p}
    cc = p["cost_centre"]
    got["cost_centre"] = cc and {k: cc[k] for k in ("label", "module", "location")}
    return got


def want_text(step, mode):
    """The profiling items of a planted step in a text line."""
    cc = step["cost_centre"]
    items = []
    if mode == "era":
        items.append("era %d" % step["era"])
    elif mode == "ldv":
        ldv = step["ldv"]
        items.append("ldv created %d %s" % (ldv["created"], "used %d" % ldv["last_used"]
                                             if ldv["used"] else "unused"))
    elif mode == "retainer":
        r = step["retainer"]
        items.append("retainer set %s flag %d" % (r["set"] or "none", r["flag"]))
    items.append("cc %s:%s (%s)" % (cc["module"], cc["label"], cc["location"]))
    return "  " + "  ".join(items) + "  "


class ProfiledModes(unittest.TestCase):
    """Each profiled mode of the debuggee, one at a time."""

    MODES = ("ldv", "retainer", "era", "plain")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.runs = 0  # connections made to the debuggee
        self.env_cache = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = self.tmp.name  # no answers from an earlier run

    def tearDown(self):
        if self.env_cache is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = self.env_cache
        self.tmp.cleanup()

    def start(self, mode):
        plan_path = os.path.join(self.tmp.name, mode + ".plan")
        counts = os.path.join(self.tmp.name, mode + ".counts")
        d = Debuggee(*COMMON, "--prof-mode", mode, "--plan", plan_path,
                     "--count-requests", counts)
        d.__enter__()
        self.addCleanup(d.__exit__, None, None, None)
        with open(plan_path) as f:
            plan = json.load(f)
        self.assertEqual(plan["profiling_mode"], {"plain": "profiled"}.get(mode, mode))
        return d, plan, counts

    def json_of(self, d, *args):
        self.runs += 1
        r = run(*args[:1], d.socket, *args[1:], "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def text_of(self, d, *args):
        self.runs += 1
        r = run(*args[:1], d.socket, *args[1:])
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def check_mode(self, mode):
        d, plan, counts = self.start(mode)
        shown = "profiled" if mode == "plain" else mode
        path = plan["leak"]["path"]
        self.assertTrue(len(path) >= 4, path)
        if mode in ("ldv", "retainer"):  # the planted steps differ in what is checked
            key = "ldv" if mode == "ldv" else "retainer"
            field = "used" if mode == "ldv" else "flag"
            self.assertEqual(len({str(s[key][field]) for s in path}), 2, path)

        # retainers: every step of the path, JSON and text
        out = self.json_of(d, "retainers", "--exact", "Leak", "--limit", "1")
        steps = out["matches"][0]["path"]
        self.assertEqual([s["address"] for s in steps], [p["address"] for p in path])
        for s, p in zip(steps, path):
            self.assertEqual(got_json(s), want_json(p, shown), s)
            self.assertGreater(s["profiling"]["cost_centre"]["id"], 0)
            self.assertIs(s["profiling"]["cost_centre"]["is_caf"], False)
            self.assertNotIn("cost_centre_unreadable", s["profiling"])
        text = self.text_of(d, "retainers", "--exact", "Leak", "--limit", "1").splitlines()
        for p in path:
            line = [l for l in text if "  %s  %s  " % (p["address"], p["type"]) in l]
            self.assertEqual(len(line), 1, text)
            self.assertIn(want_text(p, mode), line[0])

        # find: the match itself
        out = self.json_of(d, "find", "--exact", "Leak", "--limit", "1")
        leak = out["matches"][0]["closure"]
        self.assertEqual(leak["address"], path[-1]["address"])
        self.assertEqual(got_json(leak), want_json(path[-1], shown))
        line = self.text_of(d, "find", "--exact", "Leak", "--limit", "1").splitlines()[0]
        self.assertIn(want_text(path[-1], mode), line)

        # the cost centre as the line names it is the census key: --bucket takes it
        cc = path[-1]["cost_centre"]
        key = "%s:%s" % (cc["module"], cc["label"])
        self.assertIn("  cc %s (" % key, line)
        out = self.json_of(d, "find", "--exact", "Leak", "--bucket", "cost-centre=" + key,
                           "--limit", "0")
        self.assertEqual(out["count"], 300)

        # roots: the root of the planted path
        roots = self.json_of(d, "roots")["roots"]
        root = [r for r in roots if r["address"] == path[0]["address"]]
        self.assertEqual(len(root), 1, roots)
        self.assertEqual(got_json(root[0]), want_json(path[0], shown))
        text = self.text_of(d, "roots")
        self.assertIn(path[0]["address"] + "  TSO  ", text)
        line = [l for l in text.splitlines() if "  %s  TSO" % path[0]["address"] in l]
        self.assertIn(want_text(path[0], mode), line[0])

        # show: the path as a tree from its root, each node with its header
        depth = str(len(path) - 1)
        tree = self.json_of(d, "show", path[0]["address"], "--depth", depth)
        by_address = {}
        todo = [tree]
        while todo:
            node = todo.pop()
            by_address.setdefault(node["closure"]["address"], node["closure"])
            todo.extend(n for n in node.get("children", []) if "closure" in n)
        for p in path:
            self.assertEqual(got_json(by_address[p["address"]]), want_json(p, shown), p)
        text = self.text_of(d, "show", path[0]["address"], "--depth", depth)
        for p in path:
            line = [l for l in text.splitlines() if "%s  %s  " % (p["address"], p["type"]) in l]
            self.assertTrue(line, text)
            self.assertIn(want_text(p, mode), line[0])

        # a snapshot keeps the cost centres: its paths print as the live ones
        snap = os.path.join(self.tmp.name, mode + ".heapscope")
        self.runs += 1
        r = run("snapshot", d.socket, "-o", snap)
        self.assertEqual(r.returncode, 0, r.stderr)
        live = self.json_of(d, "retainers", "--exact", "Leak", "--limit", "3")
        r = run("retainers", snap, "--exact", "Leak", "--limit", "3", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["matches"], live["matches"])

        # a search with many results asks each stack and cost centre once
        before = request_counts(counts, self.runs)
        out = self.json_of(d, "retainers", "--exact", "Leak", "--limit", "0")
        after = request_counts(counts, self.runs)
        self.assertEqual(out["count"], 300)
        stacks = {s["profiling"]["ccs"] for m in out["matches"] for s in m["path"]}
        self.assertGreaterEqual(len(stacks), 2)
        for command in ("CCS", "CC"):
            asked = after.get(command, 0) - before.get(command, 0)
            self.assertLessEqual(asked, 8, "%s asked %d times for %d steps (the generator "
                                 "has 8 stacks)" % (command, asked, 6 * out["count"]))

    def test_ldv(self):
        self.check_mode("ldv")

    def test_retainer(self):
        self.check_mode("retainer")

    def test_era(self):
        self.check_mode("era")

    def test_plain(self):
        self.check_mode("plain")


class NotProfiled(test_cli.PlantedCase):
    """A non-profiled debuggee: "profiling" is null, and no text item."""

    ARGS = COMMON

    def test_profiling_is_null_everywhere(self):
        path = self.plan["leak"]["path"]
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "1")
        steps = out["matches"][0]["path"]
        self.assertEqual(len(steps), len(path))
        self.assertTrue(all(s["profiling"] is None for s in steps), steps)
        out = self.json_of("find", "--exact", "Leak", "--limit", "1")
        self.assertIsNone(out["matches"][0]["closure"]["profiling"])
        roots = self.json_of("roots")
        self.assertTrue(all(r["profiling"] is None for r in roots["roots"] + roots["saved_objects"]))
        tree = self.json_of("show", path[0]["address"], "--depth", "2")
        self.assertIsNone(tree["closure"]["profiling"])
        self.assertIsNone(tree["children"][0]["closure"]["profiling"])
        r = run("retainers", self.debuggee.socket, "--exact", "Leak", "--limit", "1")
        for word in ("  cc ", "  era ", "  ldv ", "  retainer set "):
            self.assertNotIn(word, r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
