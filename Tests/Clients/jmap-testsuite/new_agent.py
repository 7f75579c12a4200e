"""Signs up one fresh agent on the Postern at argv[1] and prints {"address", "token"}: its address and a capability JWT
(120 s) that opens its JMAP account. The JMAP-TestSuite server adapter (lib/Postern/JMAPTestSuiteAdapter.pm) runs it
for each account a test asks for, so that every test starts on an empty inbox."""

import json
import os
import secrets
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))  # Tests/: postern_testkit
from postern_testkit import agent_signup, http


def main():
    base = sys.argv[1]
    status, body, session_jwt = agent_signup(base, "jmts-" + secrets.token_hex(6))
    if status != 201:
        sys.exit(f"new_agent: signup answered {status} {body}")
    address = body["inbox"]
    status, head, body = http(base, "POST", "/api/v1/capability", bearer=session_jwt)
    if status != 200:
        sys.exit(f"new_agent: capability answered {status} {body}")
    print(json.dumps({"address": address, "token": head["Authorization"].split(" ", 1)[1]}))


if __name__ == "__main__":
    main()
