"""Example counts of the property tests, controlled from the environment.

A property's own count (``examples(40)``) is a budget for the default, derandomized run. A loaded
Hypothesis profile that asks for a different count (``pytest --hypothesis-profile=explore``) or
the environment variable ``HYPOTHESIS_EXAMPLES`` replaces it, so an explicit ``max_examples`` in a
test never caps what the environment asks for."""

import os

from hypothesis import settings


def examples(own: int) -> int:
    """``HYPOTHESIS_EXAMPLES`` if set; else the loaded profile's count when it differs from the
    default profile's; else ``own``."""
    asked = os.environ.get("HYPOTHESIS_EXAMPLES")
    if asked:
        count = int(asked)
        if count < 1:
            raise ValueError(f"HYPOTHESIS_EXAMPLES must be an integer >= 1; got {asked!r}")
        return count
    loaded = settings.default.max_examples
    return loaded if loaded != settings.get_profile("default").max_examples else own
