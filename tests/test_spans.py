"""Span <-> token label conversion (itdeid.text.spans)."""

from itdeid.document import NON_PHI, Span
from itdeid.text.spans import labels_to_spans, token_labels
from itdeid.text.tokens import tokenize

TEXT = "Seen by Dr. John Smith on 6/03/04 at Mercy\nHospital, MRN12345."


def _spans():
    return [
        Span(TEXT.index("John"), TEXT.index("Smith") + len("Smith"), "DOCTOR"),
        Span(TEXT.index("6/03/04"), TEXT.index("6/03/04") + 7, "DATE"),
        Span(TEXT.index("Mercy"), TEXT.index("Hospital") + len("Hospital"), "HOSPITAL"),
        Span(TEXT.index("12345"), TEXT.index("12345") + 5, "ID"),
    ]


def _edges(spans):
    return [x for s in spans for x in (s.start, s.end)]


def test_token_labels():
    spans = _spans()
    tokens = tokenize(TEXT, _edges(spans))
    labels = dict(zip((t.text for t in tokens), token_labels(tokens, spans)))
    assert labels["John"] == labels["Smith"] == "DOCTOR"
    assert labels["Dr"] == labels["."] == labels["by"] == NON_PHI
    assert labels["6/03/04"] == "DATE"
    assert labels["Mercy"] == labels["Hospital"] == "HOSPITAL"
    assert labels["MRN"] == NON_PHI and labels["12345"] == "ID"


def test_token_labels_without_spans():
    tokens = tokenize(TEXT)
    assert token_labels(tokens, []) == [NON_PHI] * len(tokens)


def test_round_trip_keeps_spans_that_do_not_cross_lines():
    spans = _spans()
    tokens = tokenize(TEXT, _edges(spans))
    back = labels_to_spans(TEXT, tokens, token_labels(tokens, spans))
    got = [(s.start, s.end, s.type) for s in back]
    for s in spans:
        if "\n" not in TEXT[s.start:s.end]:
            assert (s.start, s.end, s.type) in got


def test_span_across_line_break_is_not_joined():
    spans = _spans()
    tokens = tokenize(TEXT, _edges(spans))
    back = labels_to_spans(TEXT, tokens, token_labels(tokens, spans))
    hospital = [TEXT[s.start:s.end] for s in back if s.type == "HOSPITAL"]
    assert hospital == ["Mercy", "Hospital"]


def test_adjacent_tokens_of_different_classes_stay_apart():
    text = "Smith 6/03/04"
    tokens = tokenize(text)
    back = labels_to_spans(text, tokens, ["DOCTOR", "DATE"])
    assert [(text[s.start:s.end], s.type) for s in back] == [("Smith", "DOCTOR"), ("6/03/04", "DATE")]


def test_runs_separated_by_non_phi_are_separate():
    text = "John and Mary"
    tokens = tokenize(text)
    back = labels_to_spans(text, tokens, ["PATIENT", NON_PHI, "PATIENT"])
    assert [text[s.start:s.end] for s in back] == ["John", "Mary"]


def test_space_separated_run_is_one_span_and_punctuation_inside_is_kept():
    text = "Smith , John  M"
    tokens = tokenize(text)
    back = labels_to_spans(text, tokens, ["PATIENT"] * len(tokens))
    assert [(s.start, s.end) for s in back] == [(0, len(text))]


def test_a_span_of_punctuation_alone_is_dropped():
    text = "Springfield, IL ( 617 )"
    tokens = tokenize(text)
    labels = ["LOCATION", "DOCTOR", "LOCATION", "PHONE", "PHONE", "PHONE"]
    spans = labels_to_spans(text, tokens, labels)
    assert [(text[s.start:s.end], s.type) for s in spans] == [("Springfield", "LOCATION"), ("IL", "LOCATION"),
                                                              ("( 617 )", "PHONE")]


def test_the_pieces_of_a_web_address_are_one_span_of_the_longer_class():
    text = "mail x@ukliy.com or Smith-Jones today"
    tokens = tokenize(text)
    labels = ["NONE"] * len(tokens)
    for i, t in enumerate(tokens):
        if t.text in ("x", "@", "ukliy"):
            labels[i] = "ID"
        elif t.text == "com":
            labels[i] = "LOCATION"
        elif t.text in ("Smith", "Jones"):
            labels[i] = "PATIENT"
    spans = labels_to_spans(text, tokens, labels)
    assert [(text[s.start:s.end], s.type) for s in spans] == [("x@ukliy.com", "ID"), ("Smith", "PATIENT"),
                                                              ("Jones", "PATIENT")]


def test_sentence_punctuation_at_a_spans_ends_is_left_out():
    """'Dr. Yamamoto, Monday.' was redacted as 'Dr. [**DOCTOR**] Monday.' (the comma swallowed)."""
    text = "Dr. Yamamoto, Monday. Call 617-555-0100. Seen by J. ( 617 )"
    tokens = tokenize(text)
    # Dr . Yamamoto , Monday . Call 617-555-0100 . Seen by J . ( 617 )
    labels = ["NONE", "NONE", "DOCTOR", "DOCTOR", "NONE", "NONE", "NONE", "PHONE", "PHONE",
              "NONE", "NONE", "DOCTOR", "DOCTOR", "PHONE", "PHONE", "PHONE"]
    spans = labels_to_spans(text, tokens, labels)
    assert [text[s.start:s.end] for s in spans] == ["Yamamoto", "617-555-0100", "J.", "( 617 )"]


def test_unmatched_brackets_and_dashes_at_a_spans_ends_are_left_out():
    """'(AS DISCUSSED WITH NP JASMIN)' came out with the bracket in the name's span, 'Reinking-'
    with the line's dash (session 34). A bracket whose pair is inside the span stays."""
    text = "(per NP JASMIN) Reinking-\nreyes - rn\n-WAXED call (201-223-4567) [Jones]"
    tokens = tokenize(text)
    assert [t.text for t in tokens] == ["(", "per", "NP", "JASMIN", ")", "Reinking", "-", "reyes", "-",
                                        "rn", "-", "WAXED", "call", "(", "201-223-4567", ")", "[",
                                        "Jones", "]"]
    labels = [NON_PHI, NON_PHI, NON_PHI, "DOCTOR", "DOCTOR", "PATIENT", "PATIENT", "DOCTOR", "DOCTOR",
              NON_PHI, "DATE", "DATE", NON_PHI, "PHONE", "PHONE", "PHONE", "PATIENT", "PATIENT", "PATIENT"]
    spans = labels_to_spans(text, tokens, labels)
    assert [text[s.start:s.end] for s in spans] == [
        "JASMIN", "Reinking", "reyes", "WAXED", "(201-223-4567)", "[Jones]"]


def test_a_possessive_is_left_outside_the_name():
    """'Mr Murphy's wife' came out as '[**PATIENT**] wife' (the possessive inside the span), and
    'Mrs. Garcia's daughter' as '[**PATIENT**][**DOCTOR**] daughter' (the possessive typed apart).
    A name's own apostrophe stays, and so does a possessive after a space (no word to be of)."""
    text = "Murphy's wife, Garcia’S son, O'Dowd's, 's"
    tokens = tokenize(text)
    assert [t.text for t in tokens] == ["Murphy", "'s", "wife", ",", "Garcia", "’S", "son", ",",
                                        "O'Dowd", "'s", ",", "'s"]
    labels = ["PATIENT", "PATIENT", NON_PHI, NON_PHI, "PATIENT", "DOCTOR", NON_PHI, NON_PHI,
              "PATIENT", "PATIENT", NON_PHI, "ID"]
    got = [(text[s.start:s.end], s.type) for s in labels_to_spans(text, tokens, labels)]
    assert got == [("Murphy", "PATIENT"), ("Garcia", "PATIENT"), ("O'Dowd", "PATIENT"), ("'s", "ID")]


def test_annotated_phi_joins_the_predictions_over_all_their_characters():
    """An input's own PHI annotations are released by no one: added to the predictions, an
    overlap becomes one span over both, of the annotation's class."""
    from itdeid.text.spans import with_annotated
    annotated = [Span(0, 4, "PATIENT"), Span(20, 25, "DATE"), Span(40, 44, "ID")]
    predicted = [Span(0, 10, "DOCTOR"), Span(18, 22, "LOCATION"), Span(24, 30, "DATE"), Span(50, 55, "AGE")]
    assert with_annotated(annotated, predicted) == [
        Span(0, 10, "PATIENT"), Span(18, 30, "DATE"), Span(40, 44, "ID"), Span(50, 55, "AGE")]
    assert with_annotated([], predicted) == predicted
    assert with_annotated(annotated, []) == annotated


def test_a_function_word_between_two_classes_is_in_neither_span():
    """'on <date> at Mercy Hospital' was released as 'on [**DATE**] [**HOSPITAL**]': the trees
    typed 'at' HOSPITAL with the name after it. A function word (and punctuation beside it)
    between two phrases of different classes is neither's, whichever class it was given;
    between two of one class it may be the name's own ('Mass Eye and Ear', 'March 3 to 5')."""
    def spans(text, labels):
        return [(text[s.start:s.end], s.type) for s in labels_to_spans(text, tokenize(text), labels)]

    text = "on March 3 at Mercy Hospital"
    for at in ("HOSPITAL", "DATE"):
        assert spans(text, [NON_PHI, "DATE", "DATE", at, "HOSPITAL", "HOSPITAL"]) == [
            ("March 3", "DATE"), ("Mercy Hospital", "HOSPITAL")]
    text = "Dr. Cooper of the Mercy Hospital, At Boston"   # two words; a comma; capitals
    labels = [NON_PHI, NON_PHI, "DOCTOR", "DOCTOR", "DOCTOR", "HOSPITAL", "HOSPITAL", "HOSPITAL",
              "LOCATION", "LOCATION"]
    assert spans(text, labels) == [("Cooper", "DOCTOR"), ("Mercy Hospital", "HOSPITAL"), ("Boston", "LOCATION")]
    text = "Mass Eye and Ear on March 3 to 5"
    assert spans(text, ["HOSPITAL"] * 4 + [NON_PHI] + ["DATE"] * 4) == [
        ("Mass Eye and Ear", "HOSPITAL"), ("March 3 to 5", "DATE")]
    text = "seen at Mercy Hospital"      # PHI on one side only: left as tagged
    assert spans(text, [NON_PHI, "HOSPITAL", "HOSPITAL", "HOSPITAL"]) == [("at Mercy Hospital", "HOSPITAL")]
