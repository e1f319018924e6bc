#!/usr/bin/env python3
"""Checks SigMF metadata files against the SigMF JSON schema.

usage: sigmf_validate.py SCHEMA.json FILE.sigmf-meta...

Prints one line per problem ("FILE: PATH: MESSAGE") and exits 1 when there
is any, 0 when every file is valid, 77 when python3-jsonschema is missing.
The schema's "$schema" picks the draft (2020-12 for SigMF 1.2).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("no jsonschema module (apt-get install python3-jsonschema)", file=sys.stderr)
    sys.exit(77)


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    bad = 0
    for name in sys.argv[2:]:
        try:
            with open(name, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{name}: {e}")
            bad += 1
            continue
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in err.absolute_path) or "(top)"
            print(f"{name}: {where}: {err.message[:300]}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
