#!/usr/bin/env python3
"""Reads `fabricpulse sweep --output json` on stdin; exits 1 unless the sweep
succeeded with every result present and #wrong = 0. Prints one summary line
prefixed by argv[1]."""
import json
import sys

label = sys.argv[1] if len(sys.argv) > 1 else "sweep"
text = sys.stdin.read()
try:
    doc = json.loads(text)
except ValueError:
    print(f"FAIL {label}: not JSON: {text[:300]!r}")
    sys.exit(1)
results = doc.get("results", [])
wrong = sum(r["wrong"] for r in results)
ok = doc.get("status") == "succeeded" and results and wrong == 0
print(f"{'PASS' if ok else 'FAIL'} {label}: status={doc.get('status')} "
      f"nranks={doc.get('nranks')} results={len(results)} wrong={wrong} "
      f"comm_reused={doc.get('comm_reused')} init_s={doc.get('comm_init_s')}"
      + (f" error={doc.get('error')}" if doc.get("error") else ""))
sys.exit(0 if ok else 1)
