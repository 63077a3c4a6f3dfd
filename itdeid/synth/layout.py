"""The header and signature blocks of a record, one layout per style.

The top and the bottom of a discharge summary are where most IDs sit, beside the patient's full
name, the admission and discharge dates and the attending's name, laid out the way the hospital's
system prints them. :meth:`Layout.header` has one branch a header layout: a pipe-separated line in
the manner of the i2b2 2006 records ('pipe'), a block of upper-case labels ('block'), labelled
fields ('labeled'), a letter to the primary care physician ('letter'), a terse note ('terse'),
the distributed 2006 files' one-field-a-line block ('i2b2');
:meth:`Layout.signature` one a signature kind: dictated by, with transcriptionist initials,
dates, batch and document numbers ('dictated', 'dictated2'), an electronic signature ('esign'), a
letter's closing ('letter'), initials only ('initials'), the 2006 files' footer with signature
codes, batch and index numbers ('i2b2'). The style chooses among them
(:data:`~itdeid.synth.styles.STYLES`); field labels come from ``synth_phrases.json``.

Why apart: layouts are the line-oriented, most style-specific part of a record, the part a new
style adds to, and where its record, account, batch and job numbers are minted (all ID by the
corpus's convention). Methods of :class:`~itdeid.synth.record.Record` (a mixin).
"""
from __future__ import annotations

import datetime as _dt

from itdeid.synth.render import Piece
from itdeid.synth.templates import cap


class Layout:
    """Header and signature blocks, and the IDs and labels they print."""

    def id_line(self) -> list[Piece]:
        rng = self.rng
        first = f"{rng.randint(100000000, 999999999)}"
        second = f"{rng.randint(1000000, 9999999)}"
        form = rng.random()
        if form < 0.3:
            return [("Record #: ", None), (first, "ID"), ("  Encounter: ", None), (self.account(), "ID")]
        if form < 0.55:
            return [(first, "ID"), (f" {self.ch(('EMR', 'DS', 'DIS', 'ED'))} ", None), (second, "ID")]
        if form < 0.8:
            return [("Report ID: ", None), (first, "ID")]
        return [("[", None), (second, "ID"), ("]", None)]

    def account(self) -> str:
        return f"{self.ch(('', '', 'A', 'V', 'E'))}{self.rng.randint(10000000, 99999999)}"

    def label(self, key: str) -> str:
        return self.ch(self.lex.x["header_labels"][key])

    def header(self) -> list[Piece]:
        rng, s, p, h = self.rng, self.s, self.p, self.hospital
        hd = s["header_date"]
        layout = s["header"]
        out: list[Piece] = []
        if layout != "pipe" and self.chance(0.6):
            out += self.id_line() + [("\n", None)]
        if layout == "pipe":
            out += [(f"{rng.randint(100000000, 999999999)}", "ID"), (" | ", None),
                    (h.short, "HOSPITAL"), (" | ", None), (p.mrn.replace("-", ""), "ID"),
                    (" | | ", None), (f"{rng.randint(1000000, 9999999)}", "ID"), (" | ", None)]
            out += self.date(self.adm, "mdy4")[-1:]
            out += [(f" 12:00:00 AM | {self.ch(self.problem['names']).upper()} | "
                     f"{self.ch(self.lex.x['pipe_status'])} | {self.ch(self.lex.x['pipe_codes'])} | "
                     f"Admission Date: ", None)]
            out += self.date(self.adm, "mdy4")[-1:]
            out += [(" Report Status: Signed\n\nDischarge Date: ", None)]
            out += self.date(self.dis, "mdy4")[-1:]
            if self.chance(0.3):
                out += [("\n\nPATIENT: ", None)] + self.patient_name("header")
            if self.chance(0.4):
                out += [("\nUNIT NUMBER: ", None), (self.p.mrn, "ID")]
            out += [("\nATTENDING: ", None)] + self.doctor(self.attending, "sig")
            if self.chance(0.5):
                out += [(f"\nSERVICE: {self.service.upper()}", None)]
            return out + [("\n\n", None)]
        if layout == "i2b2":
            return self._i2b2_header()
        if layout == "block":
            out += [(h.name.upper(), "HOSPITAL"), ("\n", None)]
            if self.chance(0.3):
                out += [(h.city.upper(), "LOCATION"), (", ", None), (h.state, "LOCATION"),
                        ("\n", None)]
            out += [(f"{self.label('title').upper()}\n\n", None)]
            out += [(f"{self.label('patient').upper()}: ", None)] + self.patient_name("header")
            out += [(self.ch(("    ", "\n", "  ")) + f"{self.label('mrn').upper()}: ", None),
                    (p.mrn, "ID"), ("\n", None)]
            if self.chance(0.8):
                out += [(f"{self.label('account').upper()}: ", None), (self.account(), "ID")]
                if self.chance(0.5):
                    out += [("    ADM #: ", None), (f"{rng.randint(100000, 9999999)}", "ID")]
                out.append(("\n", None))
            out += [(f"{self.label('admission').upper()}: ", None)] + self.date(self.adm, hd)[-1:]
            out += [(self.ch(("    ", "\n")) + f"{self.label('discharge').upper()}: ", None)]
            out += self.date(self.dis, hd)[-1:] + [("\n", None)]
            out += [(f"{self.label('attending').upper()}: ", None)] + self.doctor(self.attending, "sig")
            if self.chance(0.4):
                out += [(f"\n{self.label('pcp').upper()}: ", None)] + self.doctor(p.pcp, "sig")
            return out + [("\n\n", None)]
        if layout == "labeled":
            out += [(self.label("title") + "\n", None), (h.name, "HOSPITAL")]
            if self.chance(0.5):
                out += [(" (", None), (h.short, "HOSPITAL"), (")", None)]
            out.append(("\n", None))
            if self.chance(0.25):
                out += self.address(h.street, h.city, h.state, h.zip) + [("\n", None)]
            out += [(self.label("patient") + ": ", None)] + self.patient_name("header")
            out += [("\n" + self.label("mrn") + ": ", None), (p.mrn, "ID")]
            if self.chance(0.85):
                out += [(self.ch(("   ", "\n")) + self.label("account") + ": ", None),
                        (self.account(), "ID")]
            if self.chance(0.4):
                out += [(self.ch(("   ", "\n")) + "Admission #: ", None),
                        (f"{rng.randint(100000, 9999999)}", "ID")]
            out += [("\n" + self.label("admission") + ": ", None)] + self.date(self.adm, hd)[-1:]
            out += [("\n" + self.label("discharge") + ": ", None)] + self.date(self.dis, hd)[-1:]
            out += [("\n" + self.label("attending") + ": ", None)] + self.doctor(self.attending, "full")
            if self.chance(0.4):
                out += [("\n" + self.label("pcp") + ": ", None)] + self.doctor(p.pcp, "full")
                if self.chance(0.3):
                    out += [(", ", None)] + self.phone()
            out += [("\n" + self.label("service") + ": " + self.service, None)]
            return out + [("\n\n", None)]
        if layout == "letter":
            out += [(h.name, "HOSPITAL"), ("\n", None)]
            out += [(f"Department of {self.ch(('Medicine', 'Cardiology', 'Surgery', 'Neurology'))}\n", None)]
            if self.chance(0.4):
                out += [(h.street, "LOCATION"), ("\n", None), (h.city, "LOCATION"), (", ", None),
                        (h.state, "LOCATION"), (" ", None), (h.zip, "LOCATION"), ("\n", None)]
            if self.chance(0.3):
                out += [(self.ch(("Tel: ", "Phone ", "Telephone: ")), None)] + self.phone(h.phone)
            if self.chance(0.1):
                out += [("  Fax: ", None)] + self.phone((h.phone[0], h.phone[1], f"{self.rng.randint(0, 9999):04d}"))
            out += [("\n\n", None)] + self.date(self.dis + _dt.timedelta(rng.randint(0, 4)), "long")
            out += [("\n\n", None)] + self.doctor(p.pcp, "full") + [("\n", None)]
            out += [(self.ch(("Internal Medicine Associates", "Primary Care Center", "Family Practice")), None),
                    (self.ch((" of ", ", ")), None)] + self.hosp(p.pcp_hospital, "short")
            out += [("\n\n", None), (self.ch(("RE: ", "Re: ", "RE: ")), None)]
            out += self.patient_name(self.ch(("full", "header")))
            out += [("\n" + self.label("mrn") + ": ", None), (p.mrn, "ID")]
            if self.chance(0.6):
                out += [("   " + self.label("account") + ": ", None), (self.account(), "ID")]
            if self.chance(0.5):
                out += [("\nDOB: ", None)] + self.date(self.adm.replace(day=1) - _dt.timedelta(
                    days=365 * self.age + rng.randint(0, 360)), "mdy4z")[-1:]
            out += [("\nDates of hospitalization: ", None)] + self.date(self.adm, "mdy4")[-1:]
            out += [(" - ", None)] + self.date(self.dis, "mdy4")[-1:]
            out += [("\n\nDear ", None), ("Dr. ", None), (p.pcp.last, "DOCTOR"), (":\n\n", None)]
            out += self.render(self.template(self.lex.sent["letter_open"])) + [("\n\n", None)]
            return out
        # terse
        out += [(self.ch(("DISCHARGE NOTE", "D/C SUMMARY", "Discharge Summary")), None), ("  ", None)]
        out += self.hosp(kind="short") + [("\n", None)]
        out += [(self.ch(("Pt: ", "Name: ", "")), None)] + self.patient_name("header")
        out += [(self.ch(("   MR#: ", "  MRN ", "\nMRN: ")), None), (p.mrn, "ID")]
        if self.chance(0.7):
            out += [(self.ch(("  Acct: ", "  Visit: ", " / ")), None), (self.account(), "ID")]
        out.append(("\n", None))
        out += [("Adm: ", None)] + self.date(self.adm, hd)[-1:] + [(self.ch(("  D/C: ", "\nD/C: ")), None)]
        out += self.date(self.dis, hd)[-1:] + [("\n", None)]
        out += [("Attg: ", None)] + self.doctor(self.attending)
        if self.chance(0.5):
            out += [(" / PCP: ", None)] + self.doctor(p.pcp)
        out += [("\n\n", None)]
        return out

    def _i2b2_header(self) -> list[Piece]:
        """The distributed 2006 files' header: record number and hospital acronym, MRN,
        account, admission date-time and diagnosis one a line, then labelled fields whose
        values sit on the next line ('ADMISSION DATE :' / '06/21/2005')."""
        rng, p, h = self.rng, self.p, self.hospital
        out: list[Piece] = [(f"{rng.randint(100000000, 999999999)}", "ID"), (" ", None),
                            (h.short, "HOSPITAL"), ("\n", None), (p.mrn.replace("-", ""), "ID"),
                            ("\n", None), (f"{rng.randint(1000000, 9999999)}", "ID"), ("\n", None)]
        out += self.date(self.adm, "mdy4z")[-1:]
        out += [(f" 12:00:00 AM\n{self.ch(self.problem['names']).upper()}\n", None)]
        if self.chance(0.3):
            out += [("Unsigned\nDIS\nReport Status :\nUnsigned\n", None)]
        out += [(f"{self.label('title').upper()} NAME :\n", None)] + self.patient_name("header")
        out += [(" UNIT NUMBER :\n", None), (p.mrn, "ID")]
        out += [("\nADMISSION DATE :\n", None)] + self.date(self.adm, "mdy4z")[-1:]
        out += [("\nDISCHARGE DATE :\n", None)] + self.date(self.dis, "mdy4z")[-1:]
        if self.chance(0.5):
            out += [("\nATTENDING PHYSICIAN :\n", None)] + self.doctor(self.attending, "sig")
        return out + [("\n", None)]

    def _index_number(self) -> str:
        """A dictation system's index number ('VZTPWD9D0E'), after 'Index No.'."""
        return "".join(self.rng.choice("ABCDEFGHJKLMNPRSTVWXYZ0123456789") for _ in range(10))

    def _signature_code(self) -> str:
        """A dictation system's code after a signing doctor's name ('BY54', 'UN497/3451')."""
        rng = self.rng
        letters = "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2))
        if self.chance(0.5):
            return f"{letters}{rng.randint(1, 99)}"
        return f"{letters}{rng.randint(100, 999)}/{rng.randint(1000, 9999)}"

    def _i2b2_signature(self) -> list[Piece]:
        """The 2006 files' footer: dictating and attending doctors with signature codes (ID),
        batch and index numbers, D and T dates one a line, the transcriptionist's initials,
        a cc list of doctors and clinics."""
        rng, d = self.rng, self.dictator
        dd = self.dis + _dt.timedelta(rng.randint(0, 2))
        td = dd + _dt.timedelta(rng.randint(0, 3))
        out: list[Piece] = [("\n\nDictated By :\n", None)] + self.doctor(d, "sig")[:1]
        out += [("\nAttending :\n", None)] + self.doctor(self.attending, "sig")[:1]
        out += [(f" {self.ch(('M.D.', 'MD', 'M.D.'))} ", None), (self._signature_code(), "ID")]
        if self.chance(0.6):
            out += [("\n", None), (self._signature_code(), "ID")]
        out += [("\nBatch :\n", None), (f"{rng.randint(1000, 99999)}", "ID")]
        out += [("\nIndex No. ", None),
                (self._index_number(), "ID")]
        out += [("\nD :\n", None)] + self.date(dd, "mdy2")[-1:]
        out += [("\nT :\n", None)] + self.date(td, "mdy2")[-1:]
        if self.chance(0.5):
            out += [(f"\nTR :\n{self.ch(self.lex.x['transcriptionists'])}", None)]
        if self.chance(0.6):
            out += [("\nCC :\n", None)] + self.doctor(self.p.pcp, "sig")[:1]
            if self.chance(0.4):
                out += [("\n", None), (self.ch(("Cardiology", "Renal", "Oncology", "Medical")), None),
                        (self.ch((" Clinic , ", " Clinic of ")), None)] + self.hosp(kind="short")
        return out

    def signature(self) -> list[Piece]:
        rng = self.rng
        kind = self.ch(self.s["signatures"])
        d = self.dictator
        tx = self.ch(self.lex.x["transcriptionists"])
        dd = self.dis + _dt.timedelta(rng.randint(0, 2))
        td = dd + _dt.timedelta(rng.randint(0, 3))
        fmt = self.ch(("mdy2", "mdy4", "mdy2n"))
        if kind == "i2b2":
            return self._i2b2_signature()
        out: list[Piece] = [("\n\n", None)]
        if kind == "dictated":
            out += [(self.label("dictated") + ": ", None)] + self.doctor(d, "sig")
            if self.chance(0.6):
                out += [("\n" + self.ch(("Attending", "ATTENDING")) + ": ", None)] + self.doctor(self.attending, "sig")
            if self.chance(0.7):
                out += [(" " if self.chance(0.5) else "\n", None), (d.initials, "DOCTOR"),
                        (f"/{tx}", None)]
            out += [("\n" + self.ch(("DD", "D")) + ": ", None)] + self.date(dd, fmt)[-1:]
            out += [("\n" + self.ch(("TD", "T")) + ": ", None)] + self.date(td, fmt)[-1:]
            if self.chance(0.5):
                out += [(f" {rng.randint(1, 12)}:{rng.randint(0, 59):02d} {self.ch(('A', 'P', 'AM', 'PM'))}", None)]
            if self.chance(0.7):
                out += [("\nBatch: ", None), (f"{rng.randint(1000, 99999)}", "ID")]
                if self.chance(0.5):
                    out += [(" Index No. ", None),
                            (self._index_number(), "ID")]
            if self.chance(0.5):
                out += [("\n" + self.ch(("Document", "DICTATION ID", "Dictation #", "eScription document")) + ": ", None),
                        (f"{rng.randint(100000, 9999999)}", "ID")]
            if self.chance(0.5):
                out += [("\ncc: ", None)] + self.doctor(self.p.pcp, "sig")
                if self.chance(0.3):
                    out += [("\n", None)] + self.doctor(self.ch(self.consultants), "sig")
        elif kind == "dictated2":
            out += [("______________________________\n", None)] + self.doctor(d, "sig")
            out += [("\n\n" + self.label("dictated").upper() + ": ", None)] + self.doctor(d, "sig")
            if self.chance(0.6):
                out += [("\nDOC #: ", None), (f"{rng.randint(100000, 9999999)}", "ID")]
            out += [(f"\nTR: {tx}\nDD: ", None)] + self.date(dd, fmt)[-1:]
            out += [("\nTD: ", None)] + self.date(td, fmt)[-1:]
            out += [(f" {rng.randint(1, 12)}:{rng.randint(0, 59):02d} {self.ch(('A', 'P'))}", None)]
            if self.chance(0.7):
                out += [("\ncc: ", None)] + self.doctor(self.p.pcp, "sig")
        elif kind == "esign":
            out += [(self.label("signed") + ": ", None)] + self.doctor(d, "full")
            out += [(" on " if self.chance(0.5) else " ", None)] + self.date(td, "mdy4z")[-1:]
            out += [(f" {rng.randint(7, 18)}:{rng.randint(0, 59):02d}", None)]
            if self.chance(0.7):
                out += [("\nDocument #: ", None), (f"{rng.randint(1000000, 9999999)}", "ID")]
            if self.chance(0.5):
                out += [("\ncc: ", None)] + self.doctor(self.p.pcp, "full")
        elif kind == "letter":
            out += self.render(self.template(self.lex.sent["letter_close"]))
            out += [("\n\nSincerely,\n\n", None)] + self.doctor(d, "full")
            out += [(f"\n{self.ch(('Division', 'Department', 'Section'))} of "
                     f"{cap(self.ch(self.lex.t['specialties']))}\n", None)]
            out += self.hosp(kind="short" if self.chance(0.5) else "full")
            out += [("\n\ncc: ", None)] + self.doctor(self.ch(self.consultants), "full")
            out += [("\n", None), (d.initials, "DOCTOR"), (f"/{tx}", None)]
            out += [("\nD: ", None)] + self.date(dd, fmt)[-1:] + [("\nT: ", None)] + self.date(td, fmt)[-1:]
        else:  # initials
            out += [(d.initials, "DOCTOR"), (f"/{tx}", None), ("  D: ", None)]
            out += self.date(dd, fmt)[-1:] + [("  T: ", None)] + self.date(td, fmt)[-1:]
            if self.chance(0.6):
                out += [(self.ch(("  Job#: ", "  Job #: ", "  JOB#: ")), None), (f"{rng.randint(10000, 999999)}", "ID")]
            if self.chance(0.5):
                out += [("\n", None)] + self.doctor(d, "sig")
        return out
