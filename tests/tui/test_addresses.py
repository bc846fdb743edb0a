"""The explorer's address prompt (Ctrl-A) on a debuggee as fragile as the
official ghc-debug stub (heapscope-debuggee --fragile: it dies when asked
about an address that is no closure of its heap; issue 19, point 1). A
made-up, stale or interior address is answered in the footer, "no closure
at ADDR in this pause", with nothing sent; the debuggee stays alive and a
real closure's address still finds it."""
import harness
from harness import TuiCase, closure_row


class Addresses(TuiCase):
    def find(self, t, addr):
        before = t.screen()
        t.keys("C-a")
        t.wait_change(before, what="the address prompt")
        t.type(addr)
        t.keys("Enter")

    def assertAlive(self, d, what):
        self.assertIsNone(d.proc.poll(), "%s: the fragile debuggee died" % what)

    def test_addresses_that_are_no_closure_are_answered_in_the_footer(self):
        d = self.debuggee("4250-fragile", harness.LEAK_ARGS + ("--fragile",))
        match = d.plan["leak"]["path"][-1]
        inside = "0x%x" % (int(match["address"], 16) + 8)
        t = self.paused(d, width=200)
        for typed, shown in (("0xdeadbeef", "0xdeadbee8"), ("0x10", "0x10"),
                             ("0x4200000000", "0x4200000000"), ("0x4200100000", "0x4200100000"),
                             (inside, inside)):
            self.find(t, typed)
            t.wait_text("no closure at %s in this pause" % shown, timeout=120,
                        what="the footer's answer for " + typed)
            self.assertAlive(d, typed)
        s = t.screen()
        self.assertIn("the address is in the heap, whose closures move", s.text)
        # a closure of this pause is still found, and the program answers
        self.find(t, match["address"])
        t.wait(lambda s: closure_row(s, match) is not None, "the closure found by its address",
               timeout=120)
        self.assertAlive(d, match["address"])


if __name__ == "__main__":
    harness.main()
