"""The explorer against a debuggee that answers too much or refuses some
closures: --max-answer stops a pause with a message naming the option, and
a search that meets unreadable closures finishes and counts them."""
import os
import sys

import harness
from harness import TuiCase

sys.path.insert(0, os.path.join(harness.SOURCE_ROOT, "tests", "common"))
import hostile_stub as hs  # noqa: E402


class AnswerCap(TuiCase):
    def test_pause_over_the_cap_names_the_option(self):
        d = self.debuggee()
        t = self.connected(d, "--max-answer", "1M", "--no-cache", width=160)
        t.keys("p")
        s = t.wait_text("--max-answer", timeout=60, what="the message naming the option")
        self.assertTrue(s.search(r"over the 1 MiB cap"), s.dump())
        self.assertTrue(s.search(r"(?i)the debuggee is running"), s.dump())
        t.keys("q")
        t.wait_exit()
        # asked only now: the stub serves one client at a time
        self.assertFalse(d.is_paused(), "the debuggee is resumed after the failed pause")


class UnreadableInSearch(TuiCase):
    def test_search_finishes_and_counts_them(self):
        d = self.debuggee()
        chosen = []

        def refuse_one_static(req):
            if req.cmd != hs.CLOSURES:
                return None
            if not chosen:
                chosen.append(req.ptrs()[0])
            return (hs.BAD_COMMAND, b"") if chosen[0] in req.ptrs() else None

        with hs.HostileStub(d.socket, refuse_one_static) as stub:
            t = self.tui(stub.socket, "--no-cache")
            t.wait_regex(r"(?i)running", what="the running screen")
            t.keys("p")
            t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots tree after p")
            before = t.screen()
            t.keys("C-e")
            t.wait_change(before, what="the search prompt")
            t.type(d.plan["leak"]["constructor"])
            t.keys("Enter")
            s = t.wait_regex(r"could not be read", timeout=120, what="the unreadable count")
            self.assertTrue(s.search(r"[0-9]+ match(es)?\b.*; 1 closure could not be read \(%s: "
                                     % hex(chosen[0])), s.dump())


if __name__ == "__main__":
    harness.main()
