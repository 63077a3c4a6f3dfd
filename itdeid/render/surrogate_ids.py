"""Identifiers, phone numbers and web addresses: the shapes their stand-ins keep.

An ID or phone stand-in is drawn run by run (a run of digits or of letters), its labels kept;
an IPv4 address, a US social security number and a North American phone number get parts that
can be ones (:func:`_valid_part`); an email address or URL in a span of any class keeps its
form, its scheme and common top-level domain kept.
"""
from __future__ import annotations

import re


#: A run of digits or of letters: the unit an ID or phone stand-in is drawn by.
_ID_RUN = re.compile(r"\d+|[^\W\d_]+")
#: Words written beside an identifier that are no part of it.
_ID_LABELS = frozenset((
    "mrn", "mr", "id", "no", "nr", "num", "number", "ext", "x", "tel", "ph", "phone", "fax", "pager",
    "cell", "acct", "account", "ssn", "dob", "med", "rec", "record", "unit", "chart", "pt", "patient"))
#: An IPv4 address and a US social security number, whose stand-ins must be ones too
#: ('192.168.1.20' was drawn as '796.767.9.81', an SSN with group '00', which is never issued).
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_SSN = re.compile(r"\d{3}-\d{2}-\d{4}")
#: A North American phone number: its area code and exchange are the first two runs of three
#: digits (after a leading country code 1, which is kept).
_NANP = re.compile(r"(?:\+?1[ .-]?)?\(?\d{3}\)?[ .-]?\d{3}[ .-]?\d{4}(?:\s*(?:x|ext\.?|extension)\s*\d{1,5})?",
                   re.IGNORECASE)


def _valid_part(kind: str | None, index: int, part: str) -> bool:
    """Whether ``part``, the ``index``-th run of digits of an IPv4 address or an SSN (``kind``
    'ip' or 'ssn'), can stand there: an octet up to 255 without a leading zero; an SSN's area
    not 000, 666 or 9xx, its group not 00, its serial not 0000."""
    if kind == "ip":
        return int(part) <= 255 and (len(part) == 1 or part[0] != "0")
    if kind == "ssn":
        return {0: part not in ("000", "666") and part[0] != "9", 1: part != "00",
                2: part != "0000"}[index]
    if kind in ("nanp", "nanp1") and index - (kind == "nanp1") in (0, 1):
        # a North American area code or exchange ('nanp1': after the country code 1): [2-9]XX,
        # not N11 (a drawn 057 or 811 is no number anyone could dial)
        return len(part) == 3 and part[0] not in "01" and part[1:] != "11"
    return True


#: An email address or a URL, in a span of any class.
_WEB_ADDRESS = re.compile(r"[^\W_][\w.+-]*@[^\W_][\w-]*\.|(?:https?://|www\.)[^\W_]"
                          r"|[^\W_][\w-]*\.(?:com|org|net|edu|gov)(?![^\W_])", re.IGNORECASE)
#: The parts of an address kept: schemes, 'www' and the common top-level domains.
_WEB_LABELS = frozenset((
    "http", "https", "www", "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "io", "us",
    "uk", "ca", "au", "de", "fr", "nl", "html", "htm", "php", "aspx"))
