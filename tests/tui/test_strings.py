"""The strings and dump views (issue 11, §3): S groups the values of byte
arrays, Text, ByteString and String lists, checked against the values the
synthetic debuggee planted (--strings) and their copies, bytes and waste;
Enter on a value searches its retainers; x dumps a byte array of any size
in hex and text, a screen at a time, checked against the planted pattern."""
import re

import harness
from harness import TuiCase

ARGS = ("--closures", "30000", "--strings", "--seed", "5")
NUMBERS, KIND, VALUE = slice(1, 41), slice(43, 60), 61  # columns of a row
DUMP = re.compile(r"^ ([0-9a-f]{10})  ((?:[0-9a-f]{2} {1,2}){1,16})")


def escape(value):
    """The value as the view shows it: printable ASCII and valid UTF-8 as they
    are, '\\' doubled, every other byte as \\xNN."""
    out, i = [], 0
    while i < len(value):
        b = value[i]
        if 0x20 <= b < 0x7f:
            out.append("\\\\" if b == 0x5c else chr(b))
            i += 1
            continue
        if b >= 0x80:
            for n in (2, 3, 4):
                try:
                    out.append(value[i:i + n].decode("utf-8"))
                    i += n
                    break
                except UnicodeDecodeError:
                    pass
            else:
                out.append("\\x%02x" % b)
                i += 1
            continue
        out.append("\\x%02x" % b)
        i += 1
    return "".join(out)


class Strings(TuiCase):
    def setUp(self):
        super().setUp()
        self.d = self.debuggee("4244-strings", ARGS)
        self.plan = self.d.plan["strings"]

    def strings(self):
        t = self.paused(self.d, width=140, height=40)
        t.keys("S")
        return t, t.wait(lambda s: "Strings and byte arrays" in s.lines[0] and "wasted" in s.lines[1],
                         "the strings view", timeout=60)

    def select(self, t, text):
        t.keys("/")
        t.type(text)
        t.keys("Enter")
        return t.wait(lambda s: s.selected_text() and text in s.selected_text(),
                      "%r selected" % text)

    def test_planted_values_with_their_copies_and_waste(self):
        t, s = self.strings()
        for row in self.plan["rows"]:
            value = bytes.fromhex(row["value_hex"])
            shown = escape(value)
            s = self.select(t, shown)
            line = s.selected_text().ljust(VALUE + 1)
            self.assertEqual(line[VALUE:].rstrip(), shown, s.dump())
            wasted, nbytes, count, length = map(int, line[NUMBERS].split())
            self.assertEqual((wasted, nbytes, count, length),
                             (row["wasted"], row["bytes"], row["count"], len(value)),
                             "%s:\n%s" % (shown, s.dump()))
            self.assertTrue(row["kinds"].startswith(line[KIND].strip()), line)

        # s sorts by the next column: bytes
        t.keys("s")
        s = t.wait(lambda s: re.search(r"[▼v]bytes", s.lines[1]), "sorted by bytes")
        shown = [int(l[NUMBERS].split()[1]) for l in s.lines[2:-1] if len(l[NUMBERS].split()) == 4]
        self.assertEqual(shown, sorted(shown, reverse=True), s.dump())

    def test_enter_searches_the_retainers_of_one_value(self):
        t, s = self.strings()
        t.keys("C-l")
        t.wait_text("limit", what="the limit prompt")
        t.type("0")
        t.keys("Enter")
        row = max(self.plan["rows"], key=lambda r: r["matches"])
        self.select(t, escape(bytes.fromhex(row["value_hex"])))
        t.keys("Enter")
        s = t.wait_regex(r"\d+ items/", timeout=60, what="the retainers of the value")
        self.assertIn("%d items/" % row["matches"], s.lines[0], s.dump())
        self.assertIn("view 3/3", s.lines[0])

    def test_dump_of_a_large_array_is_the_planted_pattern(self):
        large = self.plan["large"]
        t, s = self.strings()
        self.select(t, escape(bytes((i * 7 + 3) % 256 for i in range(6))))
        t.keys("x")
        s = t.wait(lambda s: "Bytes of the ARR_WORDS" in s.lines[0], "the dump view")
        self.assertTrue(any(a in s.lines[0] for a in large["addresses"]), s.lines[0])
        self.assertIn("of %d" % large["length"], s.lines[0])

        def check(s):
            lines = [m for m in map(DUMP.match, s.lines) if m]
            self.assertTrue(lines, s.dump())
            for m in lines:
                offset = int(m.group(1), 16)
                got = [int(x, 16) for x in m.group(2).split()]
                want = [(i * 7 + 3) % 256 for i in range(offset, min(offset + 16, large["length"]))]
                self.assertEqual(got, want, "line %s:\n%s" % (m.group(1), s.dump()))
            return lines

        first = check(s)
        self.assertEqual(int(first[0].group(1), 16), 0)
        t.keys("End")
        s = t.wait(lambda s: "of %d" % large["length"] in s.lines[0] and
                   "bytes 0-" not in s.lines[0], "the end of the array")
        last = check(s)
        self.assertEqual(int(last[-1].group(1), 16), (large["length"] - 1) // 16 * 16)
        t.keys("PageUp")
        check(t.wait_change(s, what="a page up"))

        # a closure that is no byte array says so
        t.keys("C-s")
        t.wait(lambda s: "Saved objects and GC roots" in s.lines[0], "the roots view")
        t.keys("x")
        s = t.wait_regex(r"cannot dump|select a byte array", what="the refusal")
        self.assertNotIn("Bytes of the ARR_WORDS", s.lines[0])


if __name__ == "__main__":
    harness.main()
