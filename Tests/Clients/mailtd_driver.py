"""Runs the steps of a Mail.td flow through whichever `mailtd` SDK is on PYTHONPATH, unmodified.

Usage: python3 mailtd_driver.py, then one JSON line per step on standard input, {"base": URL, "step": STEP,
"args": {…}}; it answers each with one line on standard output: {"result": …}, an APIError as {"result":
{"api_error": {"status", "code"}}} so that the caller can assert on refusals too, and any other failure as
{"failure": its traceback}. One process serves every step of one SDK: the two SDK versions share the module name
`mailtd`, so each needs an interpreter of its own, but not one per step.
"""

import dataclasses
import inspect
import json
import sys



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


# The SDK method each step calls, for the list of methods no step exercises.
STEP_METHODS = {
    "domains": "accounts.list_domains", "create": "accounts.create", "login": "accounts.login",
    "get": "accounts.get", "reset": "accounts.reset_password", "delete": "accounts.delete",
    "messages": "messages.list", "message": "messages.get", "source": "messages.get_source",
    "attachment": "messages.get_attachment", "mark_read": "messages.mark_as_read",
    "mark_all_read": "messages.batch_mark_as_read", "delete_message": "messages.delete", "me": "user.get_me",
    "pro_accounts": "user.list_accounts", "pro_reset": "user.reset_account_password",
    "pro_delete": "user.delete_account", "token_create": "tokens.create", "token_list": "tokens.list",
    "token_revoke": "tokens.revoke", "domain_create": "domains.create", "domain_list": "domains.list",
    "domain_verify": "domains.verify", "domain_delete": "domains.delete", "billing_status": "billing.get_status",
    "billing_cancel": "billing.cancel", "billing_resume": "billing.resume", "billing_portal": "billing.get_portal_url",
    "sandbox_info": "sandbox.get_info", "sandbox_messages": "sandbox.list_messages",
    "sandbox_message": "sandbox.get_message", "sandbox_source": "sandbox.get_message_source",
    "sandbox_attachment": "sandbox.get_attachment", "sandbox_delete": "sandbox.delete_message",
    "sandbox_purge": "sandbox.purge_messages", "webhook_create": "webhooks.create", "webhook_list": "webhooks.list",
    "webhook_delete": "webhooks.delete", "webhook_rotate": "webhooks.rotate_secret",
    "webhook_deliveries": "webhooks.list_deliveries", "pro_messages": "user.list_account_messages",
    "pro_accounts_page": "user.list_accounts_page",
}


def run(base, step, a):
    import mailtd  # the SDK on PYTHONPATH; imported here so that the test can read STEP_METHODS without it

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
    if step == "sandbox_info":
        return plain(client.sandbox.get_info())
    if step == "sandbox_messages":
        messages, page = client.sandbox.list_messages(page=a.get("page", 1))
        return {"messages": plain(messages), "page": page}
    if step == "sandbox_message":
        return plain(client.sandbox.get_message(a["message"]))
    if step == "sandbox_source":
        return client.sandbox.get_message_source(a["message"]).decode("utf-8", "replace")
    if step == "sandbox_attachment":
        return client.sandbox.get_attachment(a["message"], a["index"]).decode("utf-8", "replace")
    if step == "sandbox_delete":
        client.sandbox.delete_message(a["message"])
        return "deleted"
    if step == "sandbox_purge":
        return client.sandbox.purge_messages()
    if step == "methods":
        # Every public method of every resource of the client: `resource.method`.
        return sorted(f"{name}.{method}" for name, resource in vars(client).items()
                      if not name.startswith("_") and not callable(resource)
                      for method in dir(resource) if not method.startswith("_")
                      and callable(getattr(resource, method)))
    raise SystemExit(f"unknown step {step}")


def serve():
    import traceback

    from mailtd.client import APIError

    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = {"result": run(request["base"], request["step"], request["args"])}
        except APIError as error:
            answer = {"result": {"api_error": {"status": error.status, "code": error.code}}}
        except Exception:  # the caller fails the step with it; the next step still runs
            answer = {"failure": traceback.format_exc()}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    serve()
