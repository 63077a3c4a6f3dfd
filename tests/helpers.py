"""Small seeded corpora for tests that train models (fast, no shared data needed)."""
from __future__ import annotations

import random

from itdeid.document import Document, Span

FIRST = ["John", "Mary", "Alan", "Ruth", "Peter", "Linda", "Oscar", "Nina", "Hugo", "Clara"]
LAST = ["Walker", "Norris", "Fenton", "Quincy", "Barlow", "Ingram", "Dalton", "Marsh", "Keller", "Tobin"]
HOSPITALS = ["Lakeside General Hospital", "Mercy Medical Center", "Northgate Hospital", "Elm Clinic"]
CITIES = ["Boston", "Denver", "Seattle", "Dallas"]


def tiny_corpus(n: int = 40, seed: int = 0) -> list[Document]:
    """Notes built piece by piece so gold offsets are exact; two notes per patient."""
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        pieces: list[tuple[str, str | None]] = []
        doctor = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        patient = f"{rng.choice(LAST).upper()} , {rng.choice(FIRST).upper()}"
        date = f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.choice(['01', '02', '2003'])}"
        pieces += [("Patient : ", None), (patient, "PATIENT"), ("\nAttending : ", None), (doctor, "DOCTOR"),
                   ("\nHISTORY OF PRESENT ILLNESS :\nThe patient was seen at ", None),
                   (rng.choice(HOSPITALS), "HOSPITAL"), (" on ", None), (date, "DATE"),
                   (f" with {rng.choice(['chest pain', 'fever', 'cough'])} . She lives in ", None),
                   (rng.choice(CITIES), "LOCATION"), (" . Take aspirin 81 mg daily for 2-3 weeks .\n"
                                                      "Call ", None),
                   (f"555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}", "PHONE"),
                   (" with questions . Seen by Dr. ", None), (doctor, "DOCTOR"),
                   (" .\nMRN : ", None), (str(rng.randint(10 ** 7, 10 ** 8 - 1)), "ID"), ("\n", None)]
        text, spans = "", []
        for piece, kind in pieces:
            if kind:
                spans.append(Span(len(text), len(text) + len(piece), kind))
            text += piece
        docs.append(Document(f"n{i}", text, spans, patient=f"p{i // 2}"))
    return docs
