"""Typographic look-alikes of '-', '/' and ' ' are read as ASCII by the model and the
surrogates, one character for one, so offsets still cut the original note."""
from itdeid.document import Document, Span
from itdeid.featurize import tokenize_document
from itdeid.lookalikes import plain_punctuation
from itdeid.surrogate import Surrogates


def test_one_character_for_one():
    text = "Seen 03\u221514\u22152019, SSN 123\u201345\u20136789,\u00a0Dr\u2009Ames \u2014 ok"
    plain = plain_punctuation(text)
    assert len(plain) == len(text)
    assert plain == "Seen 03/14/2019, SSN 123-45-6789, Dr Ames - ok"
    ascii_text = "plain ASCII note"
    assert plain_punctuation(ascii_text) is ascii_text


def test_a_date_with_look_alike_separators_is_one_token_at_the_original_offsets():
    text = "Admitted 2019\u201003\u201014 to ICU"
    doc = Document("d", text, [Span(9, 19, "DATE")])
    td = tokenize_document(doc)
    date = [t for t in td.tokens if t.start == 9]
    assert len(date) == 1 and date[0].end == 19
    assert td.document.text[9:19] == "2019-03-14" and doc.text[9:19] == "2019\u201003\u201014"
    assert td.labels.tolist().count(5) == 1        # one DATE token


def test_surrogate_dates_with_look_alikes_are_shifted_as_dates():
    surrogates = Surrogates(b"k" * 32)
    offset_like = surrogates.surrogate("p", "DATE", "03/14/2019")
    assert surrogates.surrogate("p", "DATE", "03\u221514\u22152019") == offset_like
    assert surrogates.surrogate("p", "DATE", "March\u00a014,\u00a02019") == surrogates.surrogate(
        "p", "DATE", "March 14, 2019")
