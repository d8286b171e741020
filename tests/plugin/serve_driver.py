"""Run a ``vllm serve`` command line through vLLM 0.33.0's own parser and config path.

    python serve_driver.py ARGS.json

ARGS.json: ``{"argv": [...], "modules": [...]}``: the words after ``vllm serve``, and the
modules the served spec names. In the vLLM venv, with the plugin and dsv41gen installed on the
path, this loads vLLM's general plugins, parses ``argv`` with ``vllm serve``'s parser, and builds
the engine config as the server does (``AsyncEngineArgs.create_engine_config``), on a pretended
sm90 device. One JSON object goes to stdout. It imports nothing from dsv41gen itself: each
module is only looked up, so a module missing from the installed tree is reported, not raised.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import logging
import sys

from vllm_driver import _error, inspect_without_cuda, pretending_cuda


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def serve_config(argv: list[str]) -> dict:
    import vllm.config.vllm
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.entrypoints.common.cli_args import make_arg_parser, validate_parsed_serve_args
    from vllm.usage.usage_lib import UsageContext
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    # The CPU venv has no Triton, so vLLM would pick Model Runner V1 for want of it; a GPU
    # host has Triton, and the runner is then vLLM's own choice, as here.
    vllm.config.vllm.HAS_TRITON = True
    with pretending_cuda("9.0"):
        args = make_arg_parser(FlexibleArgumentParser()).parse_args(argv)
        args.model = args.model_tag  # what `vllm serve MODEL` does with its positional
        validate_parsed_serve_args(args)
        config = AsyncEngineArgs.from_cli_args(args).create_engine_config(
            UsageContext.OPENAI_API_SERVER
        )
    spec = config.speculative_config
    return {
        "outcome": "ok",
        "architectures": list(config.model_config.architectures),
        "method": spec.method if spec else None,
        "num_speculative_tokens": spec.num_speculative_tokens if spec else None,
        "draft_architectures": list(spec.draft_model_config.architectures) if spec else None,
        "use_v2_model_runner": config.use_v2_model_runner,
    }


def main() -> int:
    logging.disable(logging.WARNING)
    given = json.loads(open(sys.argv[1], encoding="utf-8").read())
    inspect_without_cuda()
    from vllm.plugins import load_general_plugins

    report = {"modules": {m: _found(m) for m in given["modules"]}}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            load_general_plugins()
            report["serve"] = serve_config(given["argv"])
    except Exception as error:  # the outcome is data for the test
        report["serve"] = _error(error)
    sys.stdout.write(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
