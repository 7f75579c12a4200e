"""Runs one step of a Mail.td flow through whichever `mailtd` SDK is on PYTHONPATH, unmodified.

Usage: python3 mailtd_driver.py BASE_URL STEP JSON_ARGS; prints the step's result as JSON. An APIError is printed as
{"api_error": {"status", "code"}} so that the caller can assert on refusals too.
"""

import dataclasses
import inspect
import json
import sys

import mailtd
from mailtd.client import APIError


def plain(value):
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def reset_arguments(method, a):
    """The new password, and the address where the SDK takes one (2.x needs it to derive the auth_key)."""
    arguments = {"password": a["password"]}
    if "address" in inspect.signature(method).parameters:
        arguments["address"] = a["address"]
    return arguments


def sdk_methods(client):
    """Every public method of the client's resources, as `resource.method`."""
    found = []
    for name, resource in sorted(vars(client).items()):
        if name.startswith("_") or not type(resource).__module__.startswith("mailtd."):
            continue
        found += [f"{name}.{m}" for m, _ in inspect.getmembers(type(resource), inspect.isfunction) if not m.startswith("_")]
    return found


def run(base, step, a):
    client = mailtd.MailTD(a.get("token", ""), base_url=base)
    if step == "version":
        import importlib.metadata
        return importlib.metadata.version("mailtd")
    if step == "domains":
        return [d.domain for d in client.accounts.list_domains()]
    if step == "create":
        return plain(client.accounts.create(a["address"], password=a["password"]))
    if step == "login":
        return plain(client.accounts.login(a["address"], password=a["password"]))
    if step == "get":
        return plain(client.accounts.get(a["id"]))
    if step == "reset":
        client.accounts.reset_password(a["id"], **reset_arguments(client.accounts.reset_password, a))
        return "reset"
    if step == "delete":
        client.accounts.delete(a["id"])
        return "deleted"
    if step == "messages":
        messages, page = client.messages.list(a["id"])
        return {"messages": plain(messages), "page": page}
    if step == "message":
        return plain(client.messages.get(a["id"], a["message"]))
    if step == "source":
        return client.messages.get_source(a["id"], a["message"]).decode("utf-8", "replace")
    if step == "attachment":
        return client.messages.get_attachment(a["id"], a["message"], a["index"]).decode("utf-8", "replace")
    if step == "mark_read":
        client.messages.mark_as_read(a["id"], a["message"])
        return "read"
    if step == "mark_all_read":
        return client.messages.batch_mark_as_read(a["id"], all=True)
    if step == "delete_message":
        client.messages.delete(a["id"], a["message"])
        return "deleted"
    if step == "me":
        return plain(client.user.get_me())
    if step == "pro_accounts":
        return plain(client.user.list_accounts())
    if step == "pro_messages":
        messages, page = client.user.list_account_messages(a["id"])
        return {"messages": plain(messages), "page": page}
    if step == "pro_accounts_page":
        return plain(client.user.list_accounts_page(cursor=a.get("cursor", "")))
    if step == "methods":
        return sdk_methods(client)
    if step == "pro_reset":
        client.user.reset_account_password(a["id"], **reset_arguments(client.user.reset_account_password, a))
        return "reset"
    if step == "pro_delete":
        client.user.delete_account(a["id"])
        return "deleted"
    if step == "token_create":
        return client.tokens.create(a.get("name"))
    if step == "token_list":
        return plain(client.tokens.list())
    if step == "token_revoke":
        client.tokens.revoke(a["id"])
        return "revoked"
    if step == "domain_create":
        return plain(client.domains.create(a["domain"]))
    if step == "domain_list":
        return plain(client.domains.list())
    if step == "domain_verify":
        return plain(client.domains.verify(a["id"]))
    if step == "domain_delete":
        client.domains.delete(a["id"])
        return "deleted"
    if step == "webhook_create":
        return plain(client.webhooks.create(a["url"], events=a.get("events")))
    if step == "webhook_list":
        return plain(client.webhooks.list())
    if step == "webhook_delete":
        client.webhooks.delete(a["id"])
        return "deleted"
    if step == "webhook_rotate":
        return plain(client.webhooks.rotate_secret(a["id"]))
    if step == "webhook_deliveries":
        return plain(client.webhooks.list_deliveries(a["id"]))
    if step == "billing_status":
        return plain(client.billing.get_status())
    if step == "billing_cancel":
        return plain(client.billing.cancel())
    if step == "billing_resume":
        return plain(client.billing.resume())
    if step == "billing_portal":
        return client.billing.get_portal_url()
    raise SystemExit(f"unknown step {step}")


if __name__ == "__main__":
    base, step, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    try:
        result = run(base, step, args)
    except APIError as error:
        result = {"api_error": {"status": error.status, "code": error.code}}
    print(json.dumps(result))
