"""The limits dsv41gen holds a spec and a checkpoint to, at the bottom floor beside the engine's
facts (engine_facts.py): this module imports nothing of dsv41gen, so the declaration (and the
schema derived from it), validation and the planners all read one number for each.

Each bounds something the generated code spells out one by one, so a large value costs a large
file or a slow check, not just memory.
"""

from __future__ import annotations

# Routed experts per decoder block: the generated checkpoint check names each expert's weights.
MAX_EXPERTS = 1024

# Checkpoint stages (MTP / DSpark layers) a weight set may have: each becomes one list of weight
# names in the generated checkpoint module (100,000 stages once wrote a 518 MB test module),
# and the generated reader refuses a tensor whose stage index is past it.
MAX_STAGES = 64

# Draft tokens one speculative round proposes (hf_config fields a method's tokens_per_round
# reads): each becomes a divisibility check.
MAX_TOKENS_PER_ROUND = 64

# num_speculative_tokens a method may allow or default to.
MAX_SPECULATIVE_TOKENS = 1024

# A message with its {display_name} fields filled in: it is written out as one string literal.
MAX_FILLED_MESSAGE_CHARS = 16384
