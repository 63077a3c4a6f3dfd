"""``itdeid train CORPUS --out MODEL_DIR``: train a token model, or the whole iterative system.

With no options it trains the recommended recipe (:mod:`itdeid.training.recipe`); each option turns one
part of it off or changes it.
"""
from __future__ import annotations

import argparse
import time

from itdeid.estimators.deidentifier import HARVEST, SPREAD, Deidentifier
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.errors import ParameterError, UserError
from itdeid.formats import read_annotated_corpus
from itdeid.estimators.learners import LEARNERS
from itdeid.featurize import GROUPS, RECALL_GROUPS
from itdeid.estimators.model import PREVIOUS, TokenModel
from itdeid.model_folder.model_out import check_out, replacing
from itdeid.estimators.operating_point import MAX_THRESHOLD, MIN_THRESHOLD
from itdeid.pipeline import check_skip
from itdeid.training.presets import PRESETS, train_preset
from itdeid.training.recipe import MEMBER, RECIPE
from itdeid.synth import supplement
from itdeid.featurize.triggers import VARIANTS
from itdeid.estimators.vote import RULES


#: ``--features``: named feature-group sets.
FEATURE_SETS = {"paper": GROUPS, "recall": GROUPS + RECALL_GROUPS}
assert FEATURE_SETS["recall"] == MEMBER["groups"]


def add_parser(subparsers):
    p = subparsers.add_parser("train", help="train a token model (or --system) on an annotated corpus",
                              description="Train a boosted-tree PHI token model on gold-annotated "
                                          "documents, or with --system the iterative three-model "
                                          "system (trusted phrases, vote, standardization), and save "
                                          "it to a folder (JSON + learner files; nothing runs code "
                                          "when loaded).")
    p.add_argument("corpus", nargs="?", help="annotated corpus (i2b2 2006/2014 XML, PhysioNet id.text, ...)")
    p.add_argument("--out", required=True, help="model folder to write")
    p.add_argument("--format", default="auto", help="corpus format (default: detect)")
    p.add_argument("--trigger", choices=VARIANTS, default="token", help="trigger variant (default: token)")
    p.add_argument("--learner", choices=LEARNERS, default="xgboost", help="classifier (default: xgboost)")
    p.add_argument("--previous", choices=PREVIOUS, default=None,
                   help="source of the previous-class feature at training time: out-of-fold "
                        "predictions (generalize better), gold labels (3x faster) or none "
                        "(default: none with --members or the context pass, which tag all "
                        "tokens at once; oof otherwise)")
    p.add_argument("--n-estimators", type=int, default=None,
                   help="boosting rounds (default: "
                        f"{MEMBER['n_estimators']} for the recipe's ensemble, the learner's otherwise)")
    p.add_argument("--max-depth", type=int, default=None,
                   help="depth of each tree (default: "
                        f"{MEMBER['max_depth']} for the recipe's ensemble, the learner's otherwise)")
    p.add_argument("--learning-rate", type=float, default=None,
                   help="boosting learning rate (default: "
                        f"{MEMBER['learning_rate']} for the recipe's ensemble, the learner's otherwise)")
    p.add_argument("--typer-estimators", type=int, default=None, metavar="N",
                   help="with --two-step: boosting rounds of the class model, which names the class "
                        "of a PHI token (default: "
                        f"{MEMBER.get('typer_estimators') or 'as --n-estimators'} for the recipe's ensemble, "
                        "--n-estimators otherwise)")
    p.add_argument("--typer-learning-rate", type=float, default=None, metavar="R",
                   help="with --two-step: learning rate of the class model (default: "
                        f"{MEMBER.get('typer_learning_rate') or 'as --learning-rate'} for the recipe's "
                        "ensemble, --learning-rate otherwise)")
    p.add_argument("--window", type=int, default=2, metavar="W",
                   help="neighbouring tokens each side whose attributes a token's row holds (default: 2, "
                        "the paper's)")
    p.add_argument("--device", default="cpu", help="xgboost device: cpu or cuda (default: cpu)")
    p.add_argument("--n-jobs", type=int, default=None, help="xgboost threads (default: all cores)")
    p.add_argument("--negative-rate", type=float, default=1.0,
                   help="fraction of the non-PHI tokens far from any PHI the boosted trees train on, reweighted (default: 1, all; 0.1-0.2 trains several times faster)")
    p.add_argument("--target-recall", type=float, default=RECIPE["target_recall"],
                   help="learn the P(PHI) threshold at which out-of-fold predictions (inner "
                        f"split by patient) find this share of the training PHI tokens, kept "
                        f"within [{MIN_THRESHOLD:g}, {MAX_THRESHOLD:g}] with a warning when outside "
                        f"(default: {RECIPE['target_recall']})")
    p.add_argument("--argmax", action="store_true",
                   help="learn no threshold: each token gets its most likely label (the paper's)")
    p.add_argument("--identifiers", action=argparse.BooleanOptionalAction, default=RECIPE["identifiers"],
                   help="also tag what the fixed-shape identifier templates of "
                        "features/identifiers.json match (e-mail, URL, IP, SSN, phone, ZIP, "
                        "street, numbers after MRN/policy/licence/VIN/serial, full dates, ages "
                        "over 89, and words in Han, kana or Hangul letters taken for a name): "
                        "a fixed shape's class over the model's, a name's only where the model "
                        "said non-PHI, and a label before a number ('MRN:') never PHI "
                        "(default: on)")
    p.add_argument("--skip-pass", metavar="NAME", action="append", default=[],
                   help="a pass or group of passes after the model that the trained model leaves "
                        "off, by name (repeatable; 'itdeid pipeline' lists them; kept in the model)")
    p.add_argument("--join-gaps", action=argparse.BooleanOptionalAction, default=RECIPE["join_gaps"],
                   help="with --members: tag a capitalized word standing alone between two PHI "
                        "tokens on one line with them, a state after a tagged place ('Portland, "
                        "ME'), the surname of a 'Surname, First' field and a name's trailing "
                        "initial (default: on)")
    p.add_argument("--subject-names", action=argparse.BooleanOptionalAction, default=RECIPE["subject_names"],
                   help="with --members: tag a census surname right after 'pt' or 'patient' that "
                        "the training notes never use as ordinary text as PATIENT ('Pt Murphy "
                        "resting'), and capitalized words after a title ('Mr. Brown', 'Dr. Bell') "
                        "(default: on)")
    p.add_argument("--context-pass", action=argparse.BooleanOptionalAction, default=RECIPE["context_pass"],
                   help="stack the context stage, a PHI-or-not model that reads the stage "
                        "below's probabilities of the neighbours and of the note's other "
                        "occurrences of a word: over the ensemble's mean with --members, over "
                        "the token model with --members 0 (then without --resubstitutions; "
                        "default: on)")
    p.add_argument("--features", choices=FEATURE_SETS, default="recall",
                   help="feature groups: 'recall' (default), the paper's plus the casing, census, "
                        "lexicon, spelling and measure groups, or 'paper'")
    p.add_argument("--resubstitutions", type=int, default=None,
                   help="also train on this many copies of each note with PHI, its PHI replaced "
                        "by fresh stand-ins (default: "
                        f"{MEMBER['resubstitutions']}, 0 with --system or --members 0 --context-pass). Not with "
                        "--system iterations (the trusted-phrase group)")
    p.add_argument("--members", type=int, default=None,
                   help="keep the K models of the inner split (grouped by patient) as the model "
                        "and tag by the mean of their probabilities, the threshold from their "
                        "out-of-fold probabilities (0: one model; default: "
                        f"{RECIPE['members']}, 0 with --system)")
    p.add_argument("--draws", type=int, default=RECIPE["draws"], metavar="D",
                   help="with --members: train the ensemble (members and context stage) D times "
                        "with other random draws and tag by the mean "
                        f"(default: {RECIPE['draws']})")
    p.add_argument("--two-step", action=argparse.BooleanOptionalAction, default=None,
                   help="learners that say PHI or not with a two-class model and name the class "
                        "with a second one, asked only where P(PHI) may pass a threshold: about a "
                        "ninth of the trees (default: "
                        f"{'on' if MEMBER['two_step'] else 'off'} for the recipe's ensemble, off "
                        "with --members 0 or --system, the paper's nine-class learners)")
    p.add_argument("--synthetic", type=int, default=None, metavar="N",
                   help="also train on N synthetic records (drawn with --seed), "
                        "the threshold still chosen on CORPUS's notes alone: synthetic PHI is "
                        "easier than real PHI. Needs --members (default: "
                        f"{RECIPE['synthetic']} for the recipe's ensemble, 0 with --members 0 or --system)")
    p.add_argument("--synthetic-nursing", type=float, default=RECIPE["synthetic_nursing"], metavar="F",
                   help="share of the synthetic records written as ICU nursing notes "
                        f"(default: {RECIPE['synthetic_nursing']})")
    p.add_argument("--synthetic-named", type=float, default=RECIPE["synthetic_named"], metavar="F",
                   help="share of those nursing notes that name the patient by last name after "
                        "'pt' or a title in a sentence ('Pt Murphy afebrile'), which real nursing "
                        "notes do and the PhysioNet split never does "
                        f"(default: {RECIPE['synthetic_named']})")
    p.add_argument("--stage-refit", action=argparse.BooleanOptionalAction, default=RECIPE["stage_refit"],
                   help="tag with one context-stage model refitted on all the inner folds' rows "
                        "instead of the mean of one a fold: a fifth of the stage's trees a token "
                        f"(default: {'on' if RECIPE['stage_refit'] else 'off'})")
    p.add_argument("--screen", type=float, default=None, metavar="S",
                   help="with --members: tag in a cascade, member 0 judging every token and the "
                        "other members and the stage only tokens near one it gives P(PHI) >= S "
                        f"(default: {RECIPE['screen']}, or 0 with --previous other "
                        "than none; 0: every token judged by all)")
    p.add_argument("--screen-rounds", type=int, default=None, metavar="N",
                   help="with a screen: member 0 judges every token first by its first N boosting "
                        "rounds, and gives all its trees only to the tokens those rate at a tenth of "
                        "the screen or more: faster, and in 10-fold CV on PhysioNet 100 rounds lost "
                        "one PHI instance in a thousand (default: "
                        f"{RECIPE['screen_rounds'] or 0}, all its trees on every token)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    s = p.add_argument_group("the iterative system (--system)")
    s.add_argument("--system", action="store_true", help="train the three-model iterative system")
    s.add_argument("--iterations", type=int, default=2, help="ITR rounds with trusted phrases (default: 2)")
    s.add_argument("--vote", choices=RULES, default="two_of_three", help="vote rule (default: two_of_three)")
    s.add_argument("--harvest", choices=HARVEST, default="oof",
                   help="training-time trusted phrases: from out-of-fold predictions (default; "
                        "generalized better) or gold labels (cheaper)")
    s.add_argument("--spread", choices=SPREAD, default="document",
                   help="pool trusted and standardized phrases per document or per patient")
    r = p.add_argument_group("a committed recipe (--preset)")
    r.add_argument("--preset", choices=PRESETS, default=None,
                   help="train a named recipe instead of CORPUS (default: the model "
                        "shipped in the package, the recipe on the PhysioNet split); writes "
                        "MODEL_CARD.md beside it")
    r.add_argument("--physionet", default=None,
                   help="the PhysioNet deid split folder a preset trains on "
                        "(default: ../shared/corpora/physionet-deid)")
    p.set_defaults(run=run)


#: Options a preset's training uses; every other option of ``train`` sets the recipe a preset fixes.
PRESET_OPTIONS = frozenset({"preset", "physionet", "out", "n_jobs", "device", "corpus", "run", "command"})
#: Options only an ensemble (``--members`` 2 or more) reads (``--synthetic``'s own check says so).
ENSEMBLE_OPTIONS = ("join_gaps", "subject_names", "draws", "stage_refit", "screen", "screen_rounds")
#: Options only the iterative system (``--system``) reads.
SYSTEM_OPTIONS = ("iterations", "vote", "harvest", "spread")
#: The learners' tree options, and those each learner reads (xgboost all of them).
TREE_OPTIONS = ("n_estimators", "max_depth", "learning_rate", "device")
LEARNER_READS = {"adaboost": ("n_estimators", "max_depth"), "tree": ("max_depth",), "majority": ()}
#: Options only two-step learners (``--two-step``) read.
TYPER_OPTIONS = ("typer_estimators", "typer_learning_rate")


def _given(args) -> dict[str, str]:
    """The options of ``args`` set to other than their defaults (before ``run`` fills in the
    recipe's), by name, each as written on the command line (``--n-estimators``,
    ``--no-context-pass``)."""
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    defaults = vars(parser.parse_args(["train", "--out", str(args.out)]))
    return {name: f"--{'no-' if value is False and defaults[name] is True else ''}{name.replace('_', '-')}"
            for name, value in vars(args).items()
            if name in defaults and value != defaults[name]}


def _refuse_unread(given: dict[str, str], names, reason: str) -> None:
    """A :class:`UserError` if any of the options ``names`` was given: the model being trained
    would not read it, and a setting silently dropped gives a model other than the one asked for."""
    unread = [given[name] for name in given if name in names]
    if unread:
        raise UserError(f"{', '.join(unread)} would be ignored: {reason}")


def run(args):
    given = _given(args)
    if args.preset:
        if args.corpus:
            raise UserError("give either CORPUS or --preset, not both")
        _refuse_unread(given, set(given) - PRESET_OPTIONS, "--preset trains the committed recipe as it is "
                       "(drop them, or train on a CORPUS without --preset)")
        start = time.perf_counter()
        with replacing(args.out) as fresh:
            train_preset(args.preset, fresh, args.physionet,
                         model_params={"n_jobs": args.n_jobs, "device": args.device})
        print(f"trained preset {args.preset!r} in {time.perf_counter() - start:.0f} s; saved to "
              f"{args.out} with MODEL_CARD.md")
        return 0
    if not args.corpus:
        raise UserError("give the CORPUS to train on (or --preset)")
    _refuse_unread(given, ("physionet",), "it names the corpus of --preset")
    _refuse_unread(given, set(TREE_OPTIONS) - set(LEARNER_READS.get(args.learner, TREE_OPTIONS)),
                   f"--learner {args.learner} does not read them")
    if args.argmax:
        _refuse_unread(given, ("target_recall",), "--argmax decides by the most likely class, at no threshold")
    check_out(args.out)
    if args.members is None:
        args.members = 0 if args.system else RECIPE["members"]
    if args.members and (args.members < 2 or args.system):
        raise UserError("--members needs a count of 2 or more, and no --system")
    if args.system:
        _refuse_unread(given, ENSEMBLE_OPTIONS + ("trigger",),
                       "they set the ensemble (--members) or one token model, not --system (which "
                       "trains all three trigger variants)")
    elif not args.members:
        _refuse_unread(given, ENSEMBLE_OPTIONS + SYSTEM_OPTIONS,
                       "--members 0 trains one token model (they set the ensemble or --system)")
    else:
        _refuse_unread(given, SYSTEM_OPTIONS, "they set the iterative system (--system), not the ensemble")
        if not args.context_pass:
            _refuse_unread(given, ("stage_refit",), "it sets the context stage, which "
                                                    "--no-context-pass leaves out")
    # the context stage stacks on the ensemble's mean with --members, on the token model without
    single_context = args.context_pass and not args.members
    if args.resubstitutions is None:
        args.resubstitutions = 0 if args.system or single_context else MEMBER["resubstitutions"]
    if args.synthetic is None:
        args.synthetic = RECIPE["synthetic"] if args.members else 0
    if args.synthetic < 0:
        raise UserError(f"--synthetic needs a count of 0 or more, got {args.synthetic}")
    if args.synthetic and not args.members:
        raise UserError("--synthetic needs the ensemble (--members 2 or more): it chooses its "
                        "threshold on the corpus's own notes, not on the synthetic ones")
    if not args.synthetic:
        _refuse_unread(given, ("synthetic_nursing", "synthetic_named"),
                       "it shapes the synthetic records of --synthetic N")
    if not 0 <= args.synthetic_nursing <= 1:
        raise UserError("--synthetic-nursing must be between 0 and 1")
    if not 0 <= args.synthetic_named <= 1:
        raise UserError("--synthetic-named must be between 0 and 1")
    if single_context and args.resubstitutions:
        raise UserError("--resubstitutions needs --no-context-pass with --members 0: a re-substituted "
                        "copy has no out-of-fold first pass for the context stage to read")
    previous = args.previous or ("none" if args.context_pass or args.members else "oof")
    if args.two_step is None:
        args.two_step = MEMBER["two_step"] and bool(args.members)
    if not args.two_step:
        _refuse_unread(given, TYPER_OPTIONS, "they set the class model of two-step learners (--two-step)")
    # the recipe's trees for its ensemble; a single model or the paper's system keeps the
    # learner's own defaults (the paper's settings)
    for name in ("n_estimators", "max_depth", "learning_rate", "typer_estimators", "typer_learning_rate"):
        if getattr(args, name) is None and args.members and not args.system:
            setattr(args, name, MEMBER.get(name))
    params = dict(learner=args.learner, previous=previous, n_estimators=args.n_estimators,
                  max_depth=args.max_depth, learning_rate=args.learning_rate,
                  device=args.device, n_jobs=args.n_jobs, negative_rate=args.negative_rate,
                  target_recall=None if args.argmax else args.target_recall,
                  resubstitutions=args.resubstitutions, context_pass=single_context,
                  two_step=args.two_step, window=args.window, typer_estimators=args.typer_estimators,
                  typer_learning_rate=args.typer_learning_rate)
    groups = FEATURE_SETS[args.features]
    try:    # the members' parameters checked before the corpus is read (fit checks them again)
        TokenModel(trigger=args.trigger, groups=groups, **params).check_params()
    except ParameterError as error:
        raise UserError(f"--{error.parameter.replace('_', '-')}: {error}") from None
    try:
        check_skip(args.skip_pass)
    except ValueError as error:
        raise UserError(f"--skip-pass: {error}") from None
    skip = tuple(sorted(set(args.skip_pass)))
    if args.system:
        if args.resubstitutions and args.iterations:
            raise UserError("--resubstitutions needs --iterations 0 with --system: the iterations' "
                            "trusted-phrase features have no values for re-substituted copies")
        model = Deidentifier(iterations=args.iterations, vote=args.vote, harvest=args.harvest,
                             spread=args.spread, model_params=params, random_state=args.seed,
                             identifiers=args.identifiers, groups=groups, skip_passes=skip)
    elif args.members:
        base = TokenModel(trigger=args.trigger, random_state=args.seed, groups=groups,
                          **dict(params, target_recall=None))
        if args.screen is None:
            args.screen = RECIPE["screen"] if previous == "none" else 0.0
        if not 0 <= args.screen < 1:
            raise UserError("--screen must be at least 0 and below 1")
        if args.screen and previous != "none":
            raise UserError("--screen needs members that tag every token at once (--previous none)")
        if args.screen_rounds is None:
            args.screen_rounds = (RECIPE["screen_rounds"] or 0) if args.screen else 0
        if args.screen_rounds < 0:
            raise UserError("--screen-rounds must be 0 or more")
        if args.screen_rounds and not args.screen:
            raise UserError("--screen-rounds needs a screen (--screen S above 0)")
        if args.draws < 1:
            raise UserError("--draws must be at least 1")
        model = InnerEnsemble(base, folds=args.members, target_recall=params["target_recall"],
                              identifiers=args.identifiers, context_pass=args.context_pass,
                              stage_refit=args.stage_refit, screen=args.screen or None,
                              screen_rounds=args.screen_rounds or None, draws=args.draws, join_gaps=args.join_gaps,
                              subject_names=args.subject_names, skip_passes=skip)
    else:
        model = TokenModel(trigger=args.trigger, random_state=args.seed, identifiers=args.identifiers,
                           groups=groups, skip_passes=skip, **params)
    documents = read_annotated_corpus(args.corpus, args.format)
    start = time.perf_counter()
    real = len(documents)
    if args.synthetic:
        documents = documents + supplement(args.synthetic, seed=args.seed, nursing=args.synthetic_nursing,
                                           named=args.synthetic_named)
        model.fit(documents, calibrate_on=[i < real for i in range(len(documents))])
    else:
        model.fit(documents)
    with replacing(args.out) as fresh:
        model.save(fresh)
    added = f" and {args.synthetic} synthetic records" if args.synthetic else ""
    print(f"trained {type(model).__name__} on {real} documents{added} in "
          f"{time.perf_counter() - start:.1f} s; saved to {args.out}")
