"""A fresh process's start (itdeid.estimators.warm_start, issue I): the collector held off while a model
loads and warms up, then one pass and a freeze; the templates' prefilter compiled beside the
loading only where a core is spare."""
import gc
import weakref

import pytest

from itdeid import batch

from itdeid.templates import prefilter

from itdeid.estimators import warm_start
from itdeid.batch import settings as batch_settings
from itdeid.document import Document
from itdeid.estimators.model import TokenModel

from helpers import tiny_corpus


class Node:
    pass


@pytest.fixture
def restored_collector():
    yield
    gc.unfreeze()
    gc.enable()


def test_the_collector_is_held_then_frees_the_cycles_made_and_freezes_the_rest(restored_collector):
    frozen = gc.get_freeze_count()
    with warm_start.held_collector():
        assert not gc.isenabled()
        node = Node()
        node.itself = node                        # garbage only the collector frees
        cycle = weakref.ref(node)
        kept = [Node() for _ in range(100)]
        del node
        assert cycle() is not None                # nothing collects it meanwhile
    assert gc.isenabled() and cycle() is None     # freed, not frozen
    assert gc.get_freeze_count() >= frozen + len(kept)


def test_the_collector_is_restored_when_the_loading_fails(restored_collector):
    with pytest.raises(ZeroDivisionError):
        with warm_start.held_collector():
            1 / 0
    assert gc.isenabled()
    gc.disable()
    with warm_start.held_collector():             # left off where it was off
        pass
    assert not gc.isenabled()


@pytest.mark.parametrize("cores, alone, beside", [(2, True, True), (1, True, False), (2, False, False)])
def test_the_templates_compile_beside_only_with_a_core_to_spare(monkeypatch, restored_collector,
                                                                 cores, alone, beside):
    """The run's only tagging process compiles the prefilter on a thread while it loads, when
    it has a core to spare (on one core the two took more CPU than one); a pool's workers never."""
    started = []
    compile_in_background = prefilter.compile_in_background
    monkeypatch.setattr(prefilter, "compile_in_background",
                        lambda: started.append(1) or compile_in_background())
    monkeypatch.setattr(warm_start, "cores", lambda: cores)
    with warm_start.starting(alone):
        pass
    assert bool(started) is beside


def test_load_tagger_gives_a_warm_model_and_leaves_the_collector_on(tmp_path, restored_collector):
    model_dir = tmp_path / "model"
    TokenModel(n_estimators=3, n_jobs=1, previous="gold").fit(tiny_corpus(8, seed=2)).save(model_dir)
    settings = batch.Settings(str(model_dir), "x", "redact", "auto", None)
    for alone in (False, True):
        model, surrogates = batch_settings.load_tagger(settings, alone=alone)
        assert gc.isenabled() and surrogates is None
        assert model.predict([Document("d", "Seen by Dr. Smith on 3/4/2090.")]) is not None


def test_a_failed_loading_does_not_wait_for_the_compile(monkeypatch, restored_collector):
    """A bad model or a stop ends the start at once; a good one joins the compile first."""
    joined = []

    class Compiling:
        def join(self):
            joined.append(1)

    monkeypatch.setattr(warm_start, "compile_templates_beside", Compiling)
    monkeypatch.setattr(warm_start, "cores", lambda: 2)
    with pytest.raises(KeyboardInterrupt):
        with warm_start.starting(alone=True):
            raise KeyboardInterrupt
    assert joined == [] and gc.isenabled()
    with warm_start.starting(alone=True):
        pass
    assert joined == [1]
