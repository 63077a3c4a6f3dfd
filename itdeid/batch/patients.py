"""Which notes belong to which patient, for surrogates that are consistent per patient.

Surrogates are keyed by patient (:mod:`itdeid.render.surrogate`): one patient's doctor gets one
surrogate name and all their dates one shift, in every note. Some formats say whose a note is
(PhysioNet ``<patient>-<note>`` records, i2b2 2014 ``100-01.xml`` names, i2b2 2006 ``PATIENT``
attributes); a plain-text file does not, so without help each file is its own patient. The user
says it in one of two ways:

* ``patient_regex``: a regular expression searched in the input's relative path (POSIX, as in
  the output tree); its named group ``patient``, else its only group, is the patient id
  (``^(\\d+)/`` for ``<patient>/<note>.txt``; ``(?P<patient>MRN\\d+)`` anywhere in the path).
* ``patient_map``: a CSV file with a header and the columns ``path,patient`` (path relative to
  its input root, as in the output tree; extra columns and paths of other trees are ignored).

A file that matches neither is its own patient; notes that carry their own patient id keep it.
The patient travels with the input (:attr:`~itdeid.batch.inputs.Unit.patient`) to whatever
process tags it, so grouping is the same across workers and across resumed runs; the manifest
records only a keyed fingerprint of it (:func:`patient_fingerprint`), never the id.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, replace

from itdeid.batch.files import fingerprint
from itdeid.batch.inputs import Unit
from itdeid.errors import FormatError, UserError
from itdeid.formats.files import open_regular


@dataclass(frozen=True)
class Grouping:
    """How the files of a run were grouped: ``by`` (the option used), ``patients`` (distinct
    ids given), ``grouped`` (files given one) and ``alone`` (files that matched nothing)."""

    by: str
    patients: int
    grouped: int
    alone: int
    #: Lines of a patient map whose path is no input of the run (they may be another tree's).
    unmatched: tuple[int, ...] = ()


def _compile(pattern: str) -> re.Pattern:
    try:
        regex = re.compile(pattern)
    except re.error as error:
        raise UserError(f"--patient-regex {pattern!r}: not a regular expression ({error})") from None
    if "patient" not in regex.groupindex and regex.groups != 1:
        raise UserError(f"--patient-regex {pattern!r}: needs one capture group, or a group "
                        "named 'patient', that captures the patient id")
    return regex


def _read_map(path) -> dict[str, tuple[str, int]]:
    """{relative path: (patient, line)}; a path written './dir/x.txt' or 'dir\\x.txt' is
    'dir/x.txt', as the output tree names it. Opened only once it is known to be a regular
    file (a FIFO waited forever)."""
    try:
        with io.TextIOWrapper(open_regular(path), newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if not reader.fieldnames or not {"path", "patient"} <= set(reader.fieldnames):
                raise UserError(f"--patient-map {path}: expected a header with the columns "
                                "path,patient")
            found: dict[str, tuple[str, int]] = {}
            for row in reader:
                rel = (row["path"] or "").strip().replace("\\", "/")
                while rel.startswith("./"):
                    rel = rel[2:]
                patient = (row["patient"] or "").strip()
                if not rel or not patient:
                    raise UserError(f"--patient-map {path}:{reader.line_num}: empty path or "
                                    "patient")
                if found.setdefault(rel, (patient, reader.line_num))[0] != patient:
                    raise UserError(f"--patient-map {path}:{reader.line_num}: a second patient "
                                    "for a path already mapped")
            return found
    except FormatError as error:
        raise UserError(f"--patient-map {error}") from None
    except OSError as error:
        raise UserError(f"--patient-map {path}: cannot read: {error.strerror}") from None
    except (csv.Error, UnicodeDecodeError):
        raise UserError(f"--patient-map {path}: not a UTF-8 CSV file") from None


def group(units: list[Unit], patient_regex: str | None = None,
          patient_map=None) -> tuple[list[Unit], Grouping | None]:
    """``units`` with the patient each belongs to, and how they were grouped (None when
    neither option is given)."""
    if patient_regex is not None and patient_map is not None:
        raise UserError("give --patient-regex or --patient-map, not both")
    if patient_regex is None and patient_map is None:
        return units, None
    if patient_regex is not None:
        regex = _compile(patient_regex)

        def patient_of(unit: Unit) -> str | None:
            match = regex.search(unit.rel)
            if match is None:
                return None
            return match.group("patient" if "patient" in regex.groupindex else 1) or None
        by = "--patient-regex"
    else:
        mapping = _read_map(patient_map)

        def patient_of(unit: Unit) -> str | None:
            return mapping[unit.rel][0] if unit.rel in mapping else None
        by = "--patient-map"
    grouped = [replace(unit, patient=patient_of(unit)) for unit in units]
    given = [unit.patient for unit in grouped if unit.patient is not None]
    unmatched: tuple[int, ...] = ()
    if patient_map is not None:
        rels = {unit.rel for unit in units}
        unmatched = tuple(sorted(line for rel, (_, line) in mapping.items() if rel not in rels))
    return grouped, Grouping(by, len(set(given)), len(given), len(grouped) - len(given), unmatched)


def patient_fingerprint(unit: Unit, key: bytes | None) -> str | None:
    """What the manifest records of ``unit.patient`` (for keyed outputs): a fingerprint keyed
    by the secret key, so a changed grouping redoes the input while the id (often an MRN) is
    never written."""
    if unit.patient is None or not key:
        return None
    return fingerprint(key + b"\0" + unit.patient.encode("utf-8", "surrogateescape"), "patient")
