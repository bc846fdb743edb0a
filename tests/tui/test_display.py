"""What the screen looks like (issue 6, parts 4 and 5, and the layout):
era colouring in 256 and 8 colours, NO_COLOR, themes (shipped, user, bad),
the ASCII fallback, live resizing and an 80x24 terminal."""
import collections
import os
import re

import harness
from harness import (ADDRESS, DEFAULT_PALETTE, DEFAULT_ROLES, TuiCase, closure_line, closure_row,
                     roots_json, theme_colours)



class Eras(TuiCase):
    def setUp(self):
        super().setUp()
        self.d = self.debuggee()
        self.roots = roots_json(self.d.socket)

    def root_rows(self, s):
        """{row: era} for the visible root and saved-object rows."""
        rows = {}
        for r in self.roots["roots"] + self.roots["saved_objects"]:
            match = closure_line(r)
            for i, line in enumerate(s.lines):
                if match(line):
                    rows[i] = r["era"]
        return rows

    def toggled(self, **kw):
        """Paused with the selection moved off the first rows; returns the
        tui and the screens before and after e."""
        t = self.paused(self.d, **kw)
        t.keys("End")
        before = t.wait(lambda s: s.selected_row() is not None and self.root_rows(s), "the roots")
        t.keys("e")
        after = t.wait_change(before, what="e to change the screen")
        return t, before, after

    def check_era_backgrounds(self, term):
        t, before, after = self.toggled(term=term)
        palette = DEFAULT_PALETTE
        rows = self.root_rows(before)
        self.assertGreaterEqual(len(set(rows.values())), 2, "roots of several eras are visible")
        # off: at most the 3-cell era bar of retainers-and-eras.md §5 is coloured
        for row in rows:
            coloured = [c for c in before.cells[row] if c.bg in palette]
            self.assertLessEqual(len(coloured), 3, "era colours before e:\n" + before.dump())
        after = t.wait(lambda s: any(s.bgs(r) & set(palette) for r in self.root_rows(s)),
                       "era backgrounds after e")
        sel = after.selected_row()
        for row, era in self.root_rows(after).items():
            if row == sel:
                continue
            want = palette[era % len(palette)]
            counts = collections.Counter(c.bg for c in after.cells[row] if c.ch.strip())
            self.assertEqual(counts.most_common(1)[0][0], want,
                             "row %d (era %d) has the palette's background %d:\n%s"
                             % (row, era, want, after.dump()))
        tree = set(self.root_rows(after))
        legend = [r for r in range(len(after.lines)) if r not in tree
                  and len(after.bgs(r) & set(palette)) >= 2]
        self.assertTrue(legend, "a legend of the eras:\n" + after.dump())
        t.keys("e")
        off = t.wait(lambda s: all(len([c for c in s.cells[r] if c.bg in palette]) <= 3
                                   for r in self.root_rows(s)), "e again for plain rows")
        self.assertTrue(self.root_rows(off))

    def test_era_toggle_xterm_256color(self):
        self.check_era_backgrounds("xterm-256color")

    def test_era_toggle_screen_256color(self):
        self.check_era_backgrounds("screen-256color")

    def test_era_toggle_8_colours(self):
        t = self.paused(self.d, term="screen")
        t.keys("Home")  # the selection on the first row, which is left out below
        before = t.wait(lambda s: self.root_rows(s), "the roots")
        t.keys("e")
        s = t.wait(lambda s: s.raw != before.raw and all(
            s.bgs(r) - {None} for r in self.root_rows(s)), "era rows in 8 colours")
        self.assertTrue(all(isinstance(v, int) and v < 8 for v in s.colours_used()),
                        "only the 8 colours of the terminal: %s" % sorted(map(str, s.colours_used())))
        rows = self.root_rows(s)
        by_era = {}
        for row, era in rows.items():
            if row != min(rows):
                by_era.setdefault(era, set()).add(collections.Counter(
                    c.bg for c in s.cells[row] if c.ch.strip()).most_common(1)[0][0])
        self.assertTrue(all(len(bgs) == 1 for bgs in by_era.values()), "one colour per era: %s" % by_era)
        self.assertEqual(len({min(b) for b in by_era.values()}), len(by_era),
                         "each era its own colour:\n" + s.dump())

    def test_no_color(self):
        t, before, after = self.toggled(env={"NO_COLOR": "1"})
        self.assertEqual(before.colours_used(), set(), "no colours with NO_COLOR:\n" + before.raw)
        self.assertEqual(after.colours_used(), set(), "no colours after e either")
        self.assertIsNotNone(after.selected_row(), "the selection still shows (reverse video)")


class Themes(TuiCase):
    def setUp(self):
        super().setUp()
        self.d = self.debuggee()

    def title_bg(self, t, want):
        return t.wait(lambda s: want in s.bgs(0), "a title bar with background %s" % want)

    def test_shipped_themes(self):
        for name in ("light", "high-contrast", "default"):
            roles, _ = theme_colours(name)
            t = self.connected(self.d, "--theme", name)
            self.title_bg(t, roles["title"][1])
            t.keys("q")
            t.wait_exit()
            t.close()

    def test_user_theme_wins(self):
        with open(os.path.join(harness.SOURCE_ROOT, "themes", "light.theme")) as f:
            text = f.read()
        self.home.user_theme("light", re.sub(r"(?m)^title\s*=.*$", "title = 16 on 201", text))
        t = self.connected(self.d, "--theme", "light")
        self.title_bg(t, 201)

    def test_bad_theme_gives_line_and_default(self):
        self.home.user_theme("broken", "# my theme\nnormal = default\ntitle = 15 on purple\n")
        t = self.connected(self.d, "--theme", "broken")
        seen = [t.screen()]
        s = self.title_bg(t, DEFAULT_ROLES["title"][1])  # the default theme, running
        seen.append(s)
        t.keys("p")
        seen.append(t.wait_text(self.d.plan["leak"]["root"], timeout=60))
        t.keys("q", "n")
        _, after = t.wait_exit()
        seen.append(after)
        self.assertTrue(any("broken.theme:3:" in s.text for s in seen),
                        "a FILE:LINE message for the bad theme:\n" + after.dump())

    def test_fifo_theme_is_refused_without_blocking(self):
        d = os.path.join(self.home.config, "heapscope", "themes")
        os.makedirs(d, exist_ok=True)
        os.mkfifo(os.path.join(d, "pipe.theme"))  # no writer: a plain open() waits forever
        t = self.tui("--theme", "pipe", self.d.socket)
        seen = [t.wait_regex(r"(?i)running")]
        self.title_bg(t, DEFAULT_ROLES["title"][1])
        t.keys("q")
        _, after = t.wait_exit()
        self.assertTrue(any("pipe.theme is a FIFO, not a theme file" in s.text
                            for s in seen + [after]), "the FIFO is named:\n" + after.dump())

    def test_unknown_theme_is_named(self):
        t = self.tui("--theme", "no-such-theme", self.d.socket)
        seen = [t.wait_regex(r"(?i)running")]
        self.title_bg(t, DEFAULT_ROLES["title"][1])
        t.keys("q")
        _, after = t.wait_exit()
        self.assertTrue(any("no-such-theme" in s.text for s in seen + [after]),
                        "the missing theme is named:\n" + after.dump())


class Layout(TuiCase):
    def setUp(self):
        super().setUp()
        self.d = self.debuggee()
        self.path = self.d.plan["leak"]["path"]

    def expanded(self, t):
        t.select(closure_line(self.path[0]))
        t.keys("Right")
        return t.wait(lambda s: closure_row(s, self.path[1]) is not None, "the TSO's stack")

    def repaint(self, t):
        """The screen after the palette's full repaint."""
        before = t.screen()
        t.keys("C-p")
        t.wait_change(before, what="the palette")
        t.type("Redraw")
        t.wait_text("Redraw the screen")
        t.keys("Enter")
        t.wait(lambda s: "Redraw" not in s.text, "the repaint")
        return t.settle()

    def check_clean(self, t, width, height):
        title_bg = DEFAULT_ROLES["title"][1]
        s = t.wait(lambda s: len(s.lines) == height and s.lines[-1].strip()
                   and title_bg in s.bgs(0) and closure_row(s, self.path[1]) is not None,
                   "a full redraw at %dx%d: title bar on top, the tree, the footer" % (width, height))
        s = t.settle()
        self.assertTrue(all(len(l) <= width for l in s.lines))
        footer = s.lines[-1].strip()
        self.assertFalse([l for l in s.lines[:-1] if len(footer) > 8 and footer in l],
                         "an old footer left behind:\n" + s.dump())
        fresh = self.repaint(t)
        self.assertEqual(s.lines[:-1], fresh.lines[:-1],
                         "at %dx%d the resized screen equals a full repaint:\n%s\n---\n%s"
                         % (width, height, s.dump(), fresh.dump()))

    def test_resize_redraws_without_garbage(self):
        t = self.paused(self.d)
        self.expanded(t)
        for width, height in ((80, 24), (120, 40), (100, 30)):
            t.resize(width, height)
            self.check_clean(t, width, height)
        t.resize(30, 8)  # too small to be useful: must not crash
        t.wait(lambda s: len(s.lines) == 8 and "terminal too small" in s.text, "a redraw at 30x8")
        t.resize(100, 30)
        self.check_clean(t, 100, 30)
        self.assertTrue(t.running())

    def test_too_small_says_so_centred_and_recovers(self):
        # issue 9: a 10x5 terminal showed nothing at all
        t = self.paused(self.d)
        self.expanded(t)
        def centred(s, width, height, text):
            row = s.row_with(text)
            if len(s.lines) != height or row is None:
                return False
            left = len(s.lines[row]) - len(s.lines[row].lstrip())
            return (row in ((height - 2) // 2, (height - 1) // 2)
                    and abs(left - (width - len(text)) // 2) <= 1)

        for width, height, text in ((10, 5, "too small"), (39, 24, "terminal too small"),
                                    (80, 5, "terminal too small")):
            t.resize(width, height)  # the last screen of a resize is the one that counts
            s = t.wait(lambda s: centred(s, width, height, text),
                       "%r centred at %dx%d" % (text, width, height))
            self.assertFalse(ADDRESS.search(s.text), "no tree drawn:\n" + s.dump())
        t.resize(100, 30)
        self.check_clean(t, 100, 30)
        self.assertTrue(t.running())

    def test_80x24_is_usable(self):
        t = self.paused(self.d, width=80, height=24)
        s = self.expanded(t)
        row = s.lines[closure_row(s, self.path[1])]
        self.assertRegex(row, r"\b%s\b" % self.path[1]["address"], "the full address fits")
        s = t.select(closure_line(self.path[1]))
        self.assertGreaterEqual(len(s.rows_with(self.path[1]["address"])), 2, "details beside the tree")
        self.assertTrue(s.lines[0].strip() and s.lines[-1].strip(), "title and footer bars")
        t.keys("?")
        s = t.wait_change(s, what="the help overlay")
        self.assertIn("Quit", s.text)
        t.keys("Escape")
        t.wait(lambda s: "Quit" not in s.text or closure_row(s, self.path[1]) is not None, "the tree again")

    def test_ascii_fallback(self):
        t = self.paused(self.d, lang="C")
        s = self.expanded(t)
        tree = [s.lines[closure_row(s, step)] for step in self.path[:2]]
        self.assertFalse([l for l in tree if any(ord(ch) > 127 for ch in l)],
                         "only ASCII in the tree rows with LANG=C:\n" + s.dump())
        self.assertRegex(tree[1], r"[|`+]-", "ASCII tree guides")
        self.assertTrue(ADDRESS.search(s.text))


if __name__ == "__main__":
    harness.main()
