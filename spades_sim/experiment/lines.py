"""Where each key and value of an experiment file is: a small TOML scanner.

``tomllib`` reports no line numbers for keys, so :class:`Lines` scans the text once and records
the position of every key, list element and table (dotted keys, ``[config.x]`` headers, inline
tables and arrays included); the parser's errors then name the right line.
"""

from __future__ import annotations

import bisect
import re
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_LOCAL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}$")
_VALUE_END = set(",]}#\r\n \t")


class Lines:
    """Where each key and value of a TOML text is defined, found by scanning the text (tomllib
    gives no positions).

    A *path* names a place in the parsed document as tomllib returns it: ``("seed",)``,
    ``("config", 2, "rule", "target")`` (the third ``[[config]]`` table, or the third inline
    table of ``config = [...]``), ``("grid", 0, "params", "aggression", 1)`` (the second value
    of that list). The scanner records the first position of every path: a key where it is
    written (the last part of a dotted key ``rule.target = 300``, the key of a table header
    ``[config.x]``), an element of an array where it starts, an array of tables at its
    ``[[header]]``. It runs only on text tomllib accepted, so it can follow the grammar
    loosely.
    """

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.where: dict[tuple, int] = {}
        self.tables: dict[tuple, int] = {}  # arrays of tables ([[a.b]]) and their counts
        self.pos = 0
        try:
            self._document()
        except (IndexError, ValueError, tomllib.TOMLDecodeError):  # pragma: no cover
            pass  # text the scanner does not follow: keys found so far, the rest on line 1

    # reading
    def _peek(self, count: int = 1) -> str:
        return self.text[self.pos:self.pos + count]

    def _blank(self, newlines: bool = False) -> None:
        """Skip spaces and tabs (and, with ``newlines``, line ends and comments)."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t":
                self.pos += 1
            elif newlines and char in "\r\n":
                self.pos += 1
            elif newlines and char == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            else:
                return

    def _record(self, path: tuple, pos: int) -> None:
        self.where.setdefault(path, pos)

    def _key(self) -> list[tuple[str, int]]:
        """A dotted key: its parts with their positions."""
        parts = []
        while True:
            self._blank()
            start, char = self.pos, self._peek()
            if char in "\"'":
                end = self._string_end(self.pos)
                part = tomllib.loads("k = " + self.text[start:end])["k"]
                self.pos = end
            else:
                match = _BARE_KEY.match(self.text, self.pos)
                if not match:
                    raise ValueError(f"no key at {self.pos}")
                part, self.pos = match.group(), match.end()
            parts.append((part, start))
            self._blank()
            if self._peek() != ".":
                return parts
            self.pos += 1

    def _string_end(self, pos: int) -> int:
        """The end of the string that starts at ``pos``."""
        text = self.text
        quote = text[pos]
        if text.startswith(quote * 3, pos):
            i = pos + 3
            while True:
                if quote == '"' and text[i] == "\\":
                    i += 2
                elif text.startswith(quote * 3, i):
                    end = i + 3
                    while end < len(text) and text[end] == quote and end < i + 5:
                        end += 1  # up to two quotes of the content may precede the closing
                    return end
                else:
                    i += 1
        i = pos + 1
        while text[i] != quote:
            i += 2 if quote == '"' and text[i] == "\\" else 1
        return i + 1

    def _value(self, path: tuple) -> None:
        self._record(path, self.pos)
        char = self._peek()
        if char in "\"'":
            self.pos = self._string_end(self.pos)
        elif char == "[":
            self.pos += 1
            index = 0
            while True:
                self._blank(newlines=True)
                if self._peek() == "]":
                    self.pos += 1
                    return
                self._value(path + (index,))
                index += 1
                self._blank(newlines=True)
                if self._peek() == ",":
                    self.pos += 1
        elif char == "{":
            self.pos += 1
            while True:
                self._blank(newlines=True)
                if self._peek() == "}":
                    self.pos += 1
                    return
                self._key_value(path)
                self._blank(newlines=True)
                if self._peek() == ",":
                    self.pos += 1
        else:  # a number, a boolean or a date and time
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos] not in _VALUE_END:
                self.pos += 1
            if _LOCAL_DATE.match(self.text, start, self.pos) and \
                    self.text[self.pos:self.pos + 2] in {f" {digit}" for digit in "0123456789"}:
                self.pos += 1  # 1979-05-27 07:32:00: a date and time with a space
                while self.pos < len(self.text) and self.text[self.pos] not in _VALUE_END:
                    self.pos += 1
            if self.pos == start:
                raise ValueError(f"no value at {start}")

    def _key_value(self, table: tuple) -> None:
        path = table
        for part, pos in self._key():
            path += (part,)
            self._record(path, pos)
        if self._peek() != "=":
            raise ValueError(f"no = at {self.pos}")
        self.pos += 1
        self._blank()
        self._value(path)

    def _resolve(self, parts) -> tuple:
        """A header's path: each array of tables it passes through means its last table."""
        path = ()
        for part, pos in parts:
            path += (part,)
            self._record(path, pos)
            if path in self.tables:
                path += (self.tables[path] - 1,)
        return path

    def _header(self) -> tuple:
        start = self.pos
        array = self.text.startswith("[[", self.pos)
        self.pos += 2 if array else 1
        parts = self._key()
        self.pos += 2 if array else 1
        if not array:
            path = self._resolve(parts)
            self._record(path, start)
            return path
        path = self._resolve(parts[:-1]) + (parts[-1][0],)
        self._record(path, start)
        index = self.tables.get(path, 0)
        self.tables[path] = index + 1
        self._record(path + (index,), start)
        return path + (index,)

    def _document(self) -> None:
        table: tuple = ()
        while True:
            self._blank(newlines=True)
            if self.pos >= len(self.text):
                return
            if self._peek() == "[":
                table = self._header()
            else:
                self._key_value(table)

    # answering
    def position(self, *path) -> int:
        """The offset of ``path``, or of its longest prefix the text shows (0 for none)."""
        while path and path not in self.where:
            path = path[:-1]
        return self.where.get(path, 0)

    def line(self, *path) -> int:
        """The 1-based line of ``path`` (or of its longest prefix the text shows; 1 for none)."""
        return bisect.bisect_right(self.starts, self.position(*path))


# -- parsing --------------------------------------------------------------------------------------
