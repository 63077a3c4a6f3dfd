"""Reading and writing corpora: every format becomes a list of :class:`~itdeid.document.Document`.

=========  =====================================================================================
format     layout
=========  =====================================================================================
i2b2-2006  one XML file, or a .zip holding it: ``<ROOT><RECORD ID=".."><TEXT>..<PHI TYPE="..">..
           </PHI>..</TEXT></RECORD></ROOT>``; the PHI elements are the spans.
i2b2-2014  one XML file a note (a file, a folder of ``*.xml`` or a .zip of them): ``<deIdi2b2>
           <TEXT><![CDATA[..]]></TEXT><TAGS><DATE id="P0" start=".." end=".." text=".."
           TYPE="DATE" comment=""/>..</TAGS></deIdi2b2>``; ``100-01.xml`` is note 01 of patient 100.
physionet  PhysioNet deid ``id.text`` (``START_OF_RECORD=<patient>||||<note>||||`` .. ``||||END_OF_
           RECORD``) and ``id-phi.phrase`` (``<patient> <note> <start> <end> <category> <text>``).
text       plain text files, no spans; UTF-8, or a byte-order mark (see
           :mod:`~itdeid.formats.decoding`).
jsonl      spans only, one ``{"doc": .., "start": .., "end": .., "type": ..}`` a line.
=========  =====================================================================================

Every reader keeps the note text exactly as stored (line ends included; a UTF-8 byte-order mark is
kept as U+FEFF, as Python's ``utf-8`` codec reads it, a UTF-16 or UTF-32 one is not text), except
where the format itself says otherwise: an XML parser reads a literal CRLF in an
i2b2 file as LF, as XML's end-of-line handling asks (a CR written as ``&#13;`` is kept; an i2b2
2014 file whose offsets count CRLF as two characters is read at the right offsets, with a
warning). Every reader returns spans sorted by offset, refuses duplicate document ids, and reports bad input as
:class:`FormatError` naming the file and line (never the note's text). XML is parsed with
defusedxml, DTDs refused, so an entity-expansion bomb cannot be fed in. Writers write to a
temporary file and ``os.replace`` it, so a crash never leaves half a file; the files they write
are readable by the owner only, like the PHI they may hold.

One module a format (as spaCy keeps ``spacy/training/converters/``), so each format's rules live
beside its code: :mod:`~itdeid.formats.i2b2_2006`, :mod:`~itdeid.formats.i2b2_2014` (with the
mapping of the 2014 types onto the 2006 classes), :mod:`~itdeid.formats.physionet` (with its
category mapping), :mod:`~itdeid.formats.text`, :mod:`~itdeid.formats.jsonl`. Detection by
content is :mod:`~itdeid.formats.detect`; reading and writing by format name
:mod:`~itdeid.formats.corpus`. What every reader shares: :mod:`~itdeid.formats.files` (which files
a folder holds, symbolic links and all, and reading one file's bytes),
:mod:`~itdeid.formats.decoding` (bytes to text: byte-order marks, binary refused; the one decoder
of ``itdeid tag`` and ``itdeid deid``), :mod:`~itdeid.formats.zips` (zip archives, with caps on
what they unpack), :mod:`~itdeid.formats.safe_xml` (XML parsing and escaping) and
:mod:`~itdeid.formats.common`. This package re-exports the public names, so
``from itdeid.formats import read_corpus`` keeps working.

Duplicate and overlapping spans (i2b2 2014, PhysioNet, JSON Lines): a span identical to another
(same offsets and class) is merged into it, and the number merged is logged; spans that overlap
are joined into one span over both, of the class of the one starting first (the longer where
both start together), with a warning naming document and offsets, because the token labels
every later stage builds cannot hold two classes at once. Every character either annotation
marks stays PHI: dropping one span made the words only it covered ordinary text, which a model
then learned and stored (the privacy rule: model files keep nothing learned from a PHI occurrence). The PhysioNet developer split has neither.
"""
from itdeid.formats.corpus import (READ_FORMATS, WRITE_FORMATS, read_annotated_corpus, read_corpus,
                                   read_spans, write_corpus)
from itdeid.formats.detect import detect_format
from itdeid.formats.i2b2_2006 import read_i2b2_2006, render_i2b2_2006, write_i2b2_2006
from itdeid.formats.i2b2_2014 import (I2B2_2014_CATEGORIES, I2B2_2014_TO_2006, read_i2b2_2014,
                                      write_i2b2_2014)
from itdeid.formats.jsonl import (read_jsonl_spans, render_jsonl_spans, span_record,
                                  write_jsonl_spans)
from itdeid.formats.physionet import PHYSIONET_TO_2006, read_physionet, write_physionet
from itdeid.formats.text import read_text

__all__ = ["I2B2_2014_CATEGORIES", "I2B2_2014_TO_2006", "PHYSIONET_TO_2006", "READ_FORMATS",
           "WRITE_FORMATS", "detect_format", "read_annotated_corpus", "read_corpus", "read_i2b2_2006", "read_i2b2_2014",
           "read_jsonl_spans", "read_physionet", "read_spans", "read_text", "render_i2b2_2006",
           "render_jsonl_spans", "span_record", "write_corpus", "write_i2b2_2006",
           "write_i2b2_2014", "write_jsonl_spans", "write_physionet"]
