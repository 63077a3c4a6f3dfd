"""The installed library quotes no corpus PHI and tells no project history.

Its comments, docstrings and JSON comments illustrate rules with invented names and places; a
phrase copied from a training note would ship to every hospital that installs itdeid. The first
test reads the PhysioNet split's gold PHI (skipped where ``../shared`` is absent) and looks for
each distinctive phrase in the package's comments and string literals; a failure names the file,
the line and the phrase's length and class, never the phrase. The second needs no corpus: the
library speaks of its code, not of the sessions or issues that shaped it.
"""
from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict
from importlib import resources
from pathlib import Path

import itdeid
from itdeid.formats.physionet import read_physionet

PACKAGE = Path(itdeid.__file__).resolve().parent
_WORD = re.compile(r"[A-Za-z0-9]+")
#: span classes never searched for: dates and ages are numbers and month names, no one's identity
_SKIPPED_CLASSES = {"DATE", "AGE"}
#: a single-word phrase shorter than this is too common a token to search for
_MIN_SINGLE_WORD = 6


def _library_files() -> list[Path]:
    """Every .py and .json file the installed package holds, with its features/ and gazetteers/
    JSON (the gazetteers' .txt/.tsv name lists are public census data and are not searched)."""
    roots = [PACKAGE, Path(str(resources.files("itdeid.features"))),
             Path(str(resources.files("itdeid.gazetteers")))]
    files: set[Path] = set()
    for root in roots:
        for suffix in ("*.py", "*.json"):
            files.update(p.resolve() for p in root.rglob(suffix) if "__pycache__" not in p.parts)
    return sorted(files)


def _shown(path: Path) -> str:
    """A file's path as a failure names it: from the folder holding the package."""
    return str(path.relative_to(PACKAGE.parent)) if path.is_relative_to(PACKAGE.parent) else str(path)


def _prose(path: Path) -> list[tuple[int, str]]:
    """(line, text) pieces a phrase may hide in: a .py file's comments and string literals (a run
    of comment lines joined into one piece), a .json file's lines."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return list(enumerate(text.splitlines(), 1))
    pieces: list[tuple[int, str]] = []
    comment_line, comment, last_row = 0, [], -2
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            if tok.start[0] != last_row + 1 and comment:
                pieces.append((comment_line, " ".join(comment)))
                comment = []
            if not comment:
                comment_line = tok.start[0]
            comment.append(tok.string.lstrip("#"))
            last_row = tok.start[0]
        elif tok.type == tokenize.STRING:
            pieces.append((tok.start[0], tok.string))
    if comment:
        pieces.append((comment_line, " ".join(comment)))
    return pieces


def _words_with_lines(line: int, text: str) -> list[tuple[str, int]]:
    """The piece's words in lower case, each with the file line it lies on."""
    out, seen, newlines = [], 0, 0
    for match in _WORD.finditer(text):
        newlines += text.count("\n", seen, match.start())
        seen = match.start()
        out.append((match.group(0).lower(), line + newlines))
    return out


def _common_words() -> set[str]:
    """Everyday English words, common given names and surnames, and the words of hospital names,
    streets, states and countries, from the gazetteers."""
    words: set[str] = set()
    gazetteers = resources.files("itdeid.gazetteers")
    for name in ("nonphi_words.txt", "common_word_names.txt", "first_names.tsv", "last_names.tsv",
                 "census_first_names.tsv", "hospital_name_parts.tsv", "street_suffixes.txt",
                 "us_states.tsv", "countries.txt"):
        for row in gazetteers.joinpath(name).read_text(encoding="utf-8").splitlines():
            if row and not row.startswith("#"):
                words.update(w.lower() for w in _WORD.findall(row))
    return words


def _distinctive_phrases(physionet_dir: Path) -> dict[tuple[str, ...], tuple[int, str]]:
    """Word tuple → (length, class) of every gold PHI phrase worth searching for: at least two
    words, or one word of six or more characters that is no common word or name; phrases with no
    letter, dates and ages are left out."""
    common = _common_words()
    phrases: dict[tuple[str, ...], tuple[int, str]] = {}
    for doc in read_physionet(physionet_dir):
        for span in doc.spans:
            if span.type in _SKIPPED_CLASSES:
                continue
            text = doc.text[span.start:span.end]
            words = tuple(w.lower() for w in _WORD.findall(text))
            if not words or not any(c.isalpha() for c in text):
                continue
            if len(text.split()) == 1 and (len(text) < _MIN_SINGLE_WORD
                                           or all(w in common or w.isdigit() for w in words)):
                continue
            phrases[words] = (len(text), span.subtype or span.type)
    return phrases


def test_library_quotes_no_physionet_phi(physionet_dir):
    phrases = _distinctive_phrases(physionet_dir)
    assert phrases, "the PhysioNet split gave no phrase to search for"
    by_first: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for words in phrases:
        by_first[words[0]].append(words)
    found = []
    for path in _library_files():
        for line, text in _prose(path):
            words = _words_with_lines(line, text)
            tokens = [w for w, _ in words]
            for i, (word, at) in enumerate(words):
                for phrase in by_first.get(word, ()):
                    if tuple(tokens[i:i + len(phrase)]) == phrase:
                        length, kind = phrases[phrase]
                        found.append(f"{_shown(path)}:{at}: a {kind} phrase "
                                     f"of {length} characters, {len(phrase)} word(s)")
    assert not found, "library text quotes PhysioNet PHI:\n" + "\n".join(sorted(set(found)))


_HISTORY = [re.compile(r"\bsessions?\b", re.I), re.compile(r"\bissues?\s+[A-Z]\b", re.I)]


def test_library_tells_no_session_or_issue_history():
    found = []
    for path in _library_files():
        text = path.read_text(encoding="utf-8")
        for pattern in _HISTORY:        # on the whole text: a reference may break across lines
            for match in pattern.finditer(text):
                found.append(f"{_shown(path)}:{text.count(chr(10), 0, match.start()) + 1}")
    assert not found, "library text names sessions or issues:\n" + "\n".join(found)
