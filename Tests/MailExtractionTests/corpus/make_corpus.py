#!/usr/bin/env python3
"""Writes the extraction corpus of issue 85: NAME.eml and NAME.expected.json beside it, in this folder.

How the messages were made, kept as documentation: the .eml files are the corpus and are committed; running this
again (`python3 make_corpus.py`) writes the same files (a fixed seed). Each message is built from its parts the way
real senders build theirs: a brand and its domain, a structure (text only, HTML only, multipart/alternative,
mixed with an attachment, related with an inline image), a transfer encoding (7bit, 8bit, quoted-printable with
its 76-column soft breaks, base64), a charset, a subject in plain text or as an RFC 2047 encoded word, and a body
from one of many templates per kind and language. The expected file says what a careful reader finds: the codes
(best first; empty when there is none) and the links whose kind is not `other`, the best of each kind first.

Nothing here reads the extractor: the expected answers come from how the message was written, never from running it.
"""
import base64
import json
import os
import quopri
import random
import string

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(85)

BRANDS = [
    ("Acme", "acme.example"), ("Northwind", "northwind.example"), ("Globex", "globex.example"),
    ("Initech", "initech.example"), ("Umbrella Cloud", "umbrella-cloud.example"), ("Hooli", "hooli.example"),
    ("Stark Pay", "starkpay.example"), ("Wayne Health", "waynehealth.example"), ("Pied Piper", "piedpiper.example"),
    ("Vandelay", "vandelay.example"), ("Soylent", "soylent.example"), ("Tyrell", "tyrell.example"),
    ("Cyberdyne", "cyberdyne.example"), ("Wonka Shop", "wonka.example"), ("Oceanic Air", "oceanic-air.example"),
    ("Massive Dynamic", "massivedynamic.example"), ("Gringotts Bank", "gringotts.example"), ("Duff", "duff.example"),
    ("Nakatomi", "nakatomi.example"), ("Blue Sun", "bluesun.example"), ("Aperture", "aperture.example"),
    ("Black Mesa", "blackmesa.example"), ("Monarch Notes", "monarch.example"), ("Tessier Ashpool", "ta.example"),
    ("Zorg Mail", "zorg.example"), ("Rekall", "rekall.example"), ("Octan", "octan.example"),
    ("Bluth Homes", "bluth.example"), ("Krusty Learn", "krusty.example"), ("Paper Street", "paperstreet.example"),
]
TRACKERS = [
    "https://click.{d}/ls/click?upn={t}", "https://links.{d}/u/click?_t={t}&_m=a1b2",
    "https://email.mg.{d}/c/{t}", "https://t.sendgrid-mail.example/wf/click?upn={t}",
    "https://url9824.{d}/ls/click?upn={t}", "https://clicks.mlsend.example/{t}",
]
RECIPIENTS = ["agent-7@postern.example", "signup-bot@postern.example", "qa+run42@postern.example",
              "tester@inbox.postern.example", "ci-runner@postern.example"]

messages = []


def token(n=32, alphabet=string.ascii_letters + string.digits):
    return "".join(rng.choice(alphabet) for _ in range(n))


def digits(n):
    first = rng.choice("123456789")
    return first + "".join(rng.choice(string.digits) for _ in range(n - 1))


def alnum_code(n):
    while True:
        value = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def tracked(domain, target):
    if rng.random() < 0.5:
        from urllib.parse import quote
        return rng.choice(TRACKERS).format(d=domain, t=quote(target, safe=""))
    return rng.choice(TRACKERS).format(d=domain, t=token(48, string.ascii_letters + string.digits + "-_"))


def year():
    return rng.choice(["2023", "2024", "2025", "2026"])


def address():
    return rng.choice([
        "1600 Amphitheatre Parkway, Mountain View, CA 94043", "221B Baker Street, London NW1 6XE",
        "Friedrichstraße 68, 10117 Berlin", "100 Main St, Suite 400, Springfield, IL 62701",
        "Av. Paulista 1578, São Paulo - SP, 01310-200", "12 Rue de Rivoli, 75004 Paris",
        "Calle de Alcalá 48, 28014 Madrid", "PO Box 8833, Austin, TX 78701",
    ])


def phone():
    return rng.choice(["+1 (415) 555-0132", "1-800-555-0199", "+44 20 7946 0958", "+49 30 901820",
                       "(212) 555-0147", "+33 1 42 68 53 00", "0800 123 4567"])


def css():
    return rng.choice([
        "body{margin:0;background:#f4f4f7;color:#202123}.btn{background:#10A37F;color:#ffffff}",
        "table{border-collapse:collapse}.x{color:#333333} .y{border:1px solid #E5E5E5} a{color:#1A73E8}",
        "@media (max-width:600px){.c{width:100%!important}} .h{color:#202123;font-family:Arial}",
        ".footer{color:#999999;font-size:12px}.code{font-size:32px;letter-spacing:6px;color:#111827}",
    ])


# ---------------------------------------------------------------------------------------------------------------
# MIME writing


def encode_body(text, encoding, charset):
    raw = text.replace("\r\n", "\n").encode(charset)
    if encoding == "base64":
        b = base64.b64encode(raw).decode()
        return "\r\n".join(b[i:i + 76] for i in range(0, len(b), 76)) + "\r\n"
    if encoding == "quoted-printable":
        return quopri.encodestring(raw).decode("ascii").replace("\n", "\r\n")
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def split_in_code(encoded, code):
    """A quoted-printable soft break put inside the first occurrence of `code` (as encoded, it is plain ASCII)."""
    at = encoded.find(code)
    if at < 0:
        raise ValueError("code not found in the encoded body")
    cut = at + max(1, len(code) // 2)
    return encoded[:cut] + "=\r\n" + encoded[cut:]


def leaf(content_type, text, encoding, charset, soft_break_code=None):
    body = encode_body(text, encoding, charset)
    if soft_break_code:
        body = split_in_code(body, soft_break_code)
    headers = f"Content-Type: {content_type}; charset={charset}\r\n"
    if encoding != "7bit":
        headers += f"Content-Transfer-Encoding: {encoding}\r\n"
    return headers + "\r\n" + body


def encoded_subject(subject, style):
    ascii_only = all(ord(c) < 128 for c in subject)
    if style == "plain" and ascii_only:
        return subject
    if style == "q":
        from email.header import Header
        return Header(subject, "utf-8").encode()
    return "=?UTF-8?B?" + base64.b64encode(subject.encode()).decode() + "?="


def write_message(name, brand, subject, text=None, html=None, expected_codes=(), links=(), structure=None,
                  encoding=None, charset="utf-8", subject_style=None, soft_break=None, extra_headers=""):
    brand_name, domain = brand
    structure = structure or ("alternative" if text and html else "single")
    encoding = encoding or rng.choice(["7bit", "quoted-printable", "quoted-printable", "base64", "8bit"])
    if encoding in ("7bit", "8bit") and any(ord(c) > 127 for c in (text or "") + (html or "")):
        encoding = "quoted-printable" if charset != "utf-8" or encoding == "7bit" else encoding
    subject_style = subject_style or rng.choice(["plain", "plain", "q", "b"])
    sender = rng.choice(["no-reply", "noreply", "security", "account", "hello", "notifications", "team", "support"])
    message_id = f"<{token(16).lower()}@{domain}>"
    date = rng.choice(["Mon, 04 Mar 2024 09:12:44 +0000", "Tue, 15 Oct 2024 18:03:10 +0200",
                       "Fri, 31 Jan 2025 07:45:00 -0500", "Sun, 29 Nov 2026 02:30:00 +0000"])
    head = (f"From: {brand_name} <{sender}@{domain}>\r\nTo: {rng.choice(RECIPIENTS)}\r\n"
            f"Subject: {encoded_subject(subject, subject_style)}\r\nDate: {date}\r\nMessage-ID: {message_id}\r\n"
            f"MIME-Version: 1.0\r\n{extra_headers}")
    text_code = soft_break if soft_break and text and encoding == "quoted-printable" else None
    html_code = soft_break if soft_break and html and encoding == "quoted-printable" else None
    parts = []
    if text is not None:
        parts.append(leaf("text/plain", text, encoding, charset, text_code))
    if html is not None:
        parts.append(leaf("text/html", html, encoding, charset, html_code))
    if structure == "single":
        body = head + parts[0]
    else:
        boundary = "=_" + token(24)
        inner = "".join(f"--{boundary}\r\n{part}\r\n" for part in parts) + f"--{boundary}--\r\n"
        if structure == "alternative":
            body = head + f"Content-Type: multipart/alternative; boundary=\"{boundary}\"\r\n\r\n" + inner
        elif structure == "mixed":
            outer = "=_" + token(24)
            attachment = base64.b64encode(f"%PDF-1.4 receipt {token(40)}".encode()).decode()
            body = (head + f"Content-Type: multipart/mixed; boundary=\"{outer}\"\r\n\r\n"
                    f"--{outer}\r\nContent-Type: multipart/alternative; boundary=\"{boundary}\"\r\n\r\n{inner}\r\n"
                    f"--{outer}\r\nContent-Type: application/pdf; name=\"invoice-{digits(6)}.pdf\"\r\n"
                    f"Content-Disposition: attachment; filename=\"invoice-{digits(6)}.pdf\"\r\n"
                    f"Content-Transfer-Encoding: base64\r\n\r\n{attachment}\r\n--{outer}--\r\n")
        else:  # related
            outer = "=_" + token(24)
            logo = base64.b64encode(bytes(rng.randrange(256) for _ in range(120))).decode()
            body = (head + f"Content-Type: multipart/related; boundary=\"{outer}\"\r\n\r\n"
                    f"--{outer}\r\nContent-Type: multipart/alternative; boundary=\"{boundary}\"\r\n\r\n{inner}\r\n"
                    f"--{outer}\r\nContent-Type: image/png\r\nContent-ID: <logo@{domain}>\r\n"
                    f"Content-Transfer-Encoding: base64\r\n\r\n{logo}\r\n--{outer}--\r\n")
    if soft_break and encoding != "quoted-printable":
        raise ValueError("a soft break needs quoted-printable")
    messages.append((name, body, {"codes": list(expected_codes),
                                  "links": [{"url": u, "kind": k} for (u, k) in links]}))


# ---------------------------------------------------------------------------------------------------------------
# HTML pieces


def html_page(brand, inner, preheader=None, style=True):
    pre = (f'<div style="display:none;max-height:0;overflow:hidden;opacity:0">{preheader}'
           + "&zwnj;&nbsp;" * rng.randint(3, 30) + "</div>") if preheader else ""
    head = f"<head><meta charset=\"utf-8\"><title>{brand[0]}</title>" + (
        f"<style type=\"text/css\">{css()}</style>" if style else "") + "</head>"
    footer = rng.choice([
        f'<p style="color:#999999;font-size:12px">&copy; {year()} {brand[0]}, Inc. {address()}</p>',
        f'<p style="color:#8898aa;font-size:12px">{brand[0]} &middot; {address()}<br>Questions? Call {phone()}</p>',
        f'<table><tr><td style="color:#6b7280;font-size:11px">Copyright {year()} {brand[0]}. All rights reserved.'
        f'</td></tr></table>',
        f'<p style="font-size:11px;color:#aaaaaa">Sent by {brand[0]} &bull; {address()}</p>',
    ])
    layout = rng.choice(["table", "div"])
    if layout == "table":
        body = (f'<table width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f7"><tr><td align="center">'
                f'<table width="600" style="background:#ffffff"><tr><td style="padding:32px">'
                f'<img src="https://cdn.{brand[1]}/logo.png" alt="{brand[0]}" width="120">'
                f'{inner}</td></tr><tr><td style="padding:16px">{footer}</td></tr></table></td></tr></table>')
    else:
        body = (f'<div style="max-width:600px;margin:0 auto;font-family:Helvetica,Arial,sans-serif">'
                f'<img src="https://cdn.{brand[1]}/img/header.png" alt="" width="600">{inner}{footer}</div>')
    return f"<!DOCTYPE html><html>{head}<body>{pre}{body}</body></html>"


def code_block(code):
    return rng.choice([
        f'<p style="font-size:32px;font-weight:bold;letter-spacing:8px;color:#111827">{code}</p>',
        f'<h1 style="color:#202123">{code}</h1>',
        f'<div style="background:#F3F4F6;padding:16px;text-align:center"><span style="font-size:28px;'
        f'font-family:monospace;letter-spacing:4px">{code}</span></div>',
        f'<table><tr><td style="font-size:24px;padding:12px 24px;border:1px solid #E5E7EB"><strong>{code}</strong>'
        f'</td></tr></table>',
        f'<p><b>{code}</b></p>',
        f'<p class="code">{code}</p>',
    ])


def button(url, label):
    return rng.choice([
        f'<table><tr><td style="background:#10A37F;border-radius:6px"><a href="{url}" style="color:#ffffff;'
        f'padding:12px 24px;display:inline-block;text-decoration:none;font-weight:bold">{label}</a></td></tr></table>',
        f'<p><a href="{url}" class="btn" style="background-color:#1A73E8;color:#fff;padding:10px 20px">{label}</a></p>',
        f'<div style="text-align:center;margin:24px 0"><a href="{url}" target="_blank" '
        f'style="font-size:16px;background:#111;color:#fff;padding:14px 28px;border-radius:4px">{label}</a></div>',
    ])


def footer_links(domain):
    unsub = f"https://{domain}/email/unsubscribe?u={token(20)}"
    html = rng.choice([
        f'<p style="font-size:12px"><a href="https://{domain}/privacy">Privacy</a> | '
        f'<a href="https://{domain}/terms">Terms</a> | <a href="{unsub}">Unsubscribe</a></p>',
        f'<p style="font-size:11px;color:#999">You are receiving this because you signed up at {domain}. '
        f'<a href="{unsub}">Unsubscribe</a> or <a href="https://{domain}/settings/notifications">manage '
        f'preferences</a>.</p>',
    ])
    text = f"Unsubscribe: {unsub}\nPrivacy: https://{domain}/privacy"
    return unsub, html, text


# ---------------------------------------------------------------------------------------------------------------
# One-time codes, English


EN_LINES = [
    ("Your verification code is {c}.", "before"),
    ("Your {b} verification code is: {c}", "before"),
    ("{c} is your {b} verification code.", "after"),
    ("Use this code to sign in: {c}", "before"),
    ("Enter the following one-time passcode to continue: {c}", "before"),
    ("Your security code is {c}. It expires in 10 minutes.", "before"),
    ("Here is your login code: {c}", "before"),
    ("Your one-time password (OTP) is {c}. Do not share it with anyone.", "before"),
    ("To finish signing up, enter this confirmation code: {c}", "before"),
    ("{c} is your {b} sign-in code. It expires in 15 minutes.", "after"),
    ("Your PIN is {c}.", "before"),
    ("Your two-factor authentication code: {c}", "before"),
    ("Please use the verification code below to confirm your email address.\n\n{c}\n\n", "above"),
    ("Your {b} code:\n\n    {c}\n", "above"),
    ("Your access code is {c}", "before"),
]

EN_DECOYS = [
    "This code was requested on 2024-05-01 at 10:42 UTC from Chrome 124 on Windows.",
    "If you did not request this, call us at {p}.",
    "Your order #{o} is not affected.",
    "Plans start at $1299 per year.",
    "Request ID: {o}",
    "© {y} {b}, Inc. All rights reserved.",
    "{a}",
    "IP address: 203.0.113.42 (Lisbon, PT)",
    "Need help? Reply to this email or call {p}.",
    "Ticket 48213 has been updated.",
]


def decoys(brand, count):
    picked = rng.sample(EN_DECOYS, count)
    return [d.format(p=phone(), o=digits(rng.choice([6, 7, 8])), y=year(), b=brand[0], a=address()) for d in picked]


def en_code_message(index, code, shape_note="", structure=None, soft_break=False, subject=None, only_subject=False):
    brand = rng.choice(BRANDS)
    line, _ = rng.choice(EN_LINES)
    line = line.format(c=code, b=brand[0])
    greet = rng.choice(["Hi there,", "Hello,", "Hi Agent,", "Welcome!", ""])
    outro = rng.choice(["If you didn't request this code, you can ignore this email.",
                        "This code expires in 10 minutes.", "Thanks,\nThe {} team".format(brand[0]),
                        "Never share this code. We will never ask for it."])
    extra = decoys(brand, rng.randint(0, 3))
    subject = subject or rng.choice([f"Your {brand[0]} verification code", f"{brand[0]}: confirm your email",
                                     f"Sign in to {brand[0]}", f"Your one-time code", f"Security code for {brand[0]}",
                                     f"Welcome to {brand[0]}"])
    text = "\n\n".join(x for x in [greet, line, outro] + extra if x)
    kind = structure or rng.choice(["text", "html", "alternative", "alternative", "mixed", "related"])
    html_inner = (f"<p>{greet}</p>" if greet else "") + rng.choice([
        f"<p>{line.replace(code, '').rstrip(': .').replace(chr(10), ' ')}:</p>{code_block(code)}",
        f"<p>{line}</p>".replace("\n", "<br>"),
    ]) + f"<p>{outro}</p>".replace("\n", "<br>") + "".join(f"<p>{x}</p>" for x in extra)
    if "{c}" not in line and line.startswith(code):
        html_inner = f"<p>{line}</p>" + f"<p>{outro}</p>"
    html = html_page(brand, html_inner, preheader=None if soft_break else rng.choice(
        [None, f"Your code is {code}", "Confirm it's you"]))
    encoding = "quoted-printable" if soft_break else None
    name = f"en-code-{index:03d}{shape_note}"
    if kind == "text":
        write_message(name, brand, subject, text=text, expected_codes=[code], encoding=encoding,
                      soft_break=code if soft_break else None)
    elif kind == "html":
        write_message(name, brand, subject, html=html, expected_codes=[code], encoding=encoding,
                      soft_break=code if soft_break else None)
    else:
        write_message(name, brand, subject, text=text, html=html, expected_codes=[code], structure=kind,
                      encoding=encoding, soft_break=code if soft_break else None)


def en_codes():
    index = 0
    for _ in range(34):
        index += 1
        en_code_message(index, digits(6))
    for n in (4, 4, 5, 7, 8, 8, 4, 5):
        index += 1
        en_code_message(index, digits(n), f"-{n}digits")
    for _ in range(5):
        index += 1
        c = digits(6)
        en_code_message(index, f"{c[:3]} {c[3:]}", "-spaced", structure=rng.choice(["text", "alternative"]))
    for _ in range(5):
        index += 1
        c = digits(6)
        en_code_message(index, f"{c[:3]}-{c[3:]}", "-hyphen")
    for n in (6, 6, 8, 5, 7):
        index += 1
        en_code_message(index, alnum_code(n), "-alnum")
    for _ in range(3):
        index += 1
        en_code_message(index, f"{alnum_code(3)}-{alnum_code(3)}", "-alnum-hyphen")
    for _ in range(8):
        index += 1
        en_code_message(index, digits(rng.choice([6, 6, 8])), "-qp-break", structure=rng.choice(["text", "html"]),
                        soft_break=True)


def prefixed_codes():
    for i, (prefix, brand_word) in enumerate([("G", "Google"), ("FB", "Facebook"), ("G", "Hooli"), ("KB", "Kbase")]):
        code = digits(6 if prefix == "G" else 5)
        brand = rng.choice(BRANDS)
        subject = f"{prefix}-{code} is your {brand_word} verification code"
        text = f"{prefix}-{code} is your {brand_word} verification code.\n\nDon't share it with anyone."
        write_message(f"en-prefixed-{i + 1:02d}", brand, subject, text=text, expected_codes=[code])


def subject_only():
    for i in range(6):
        brand = rng.choice(BRANDS)
        code = digits(rng.choice([6, 6, 4, 8]))
        subject = rng.choice([f"{code} is your {brand[0]} code", f"Your {brand[0]} login code: {code}",
                              f"[{brand[0]}] Verification code {code}", f"{brand[0]} sign-in code - {code}"])
        body = rng.choice([
            "Use the code in the subject line to sign in. It expires in 10 minutes.",
            f"Someone is trying to sign in to your {brand[0]} account. If this was you, use the code above.",
            "Copy the code from the subject of this email into the app.",
        ])
        if rng.random() < 0.5:
            write_message(f"en-subject-only-{i + 1:02d}", brand, subject, text=body, expected_codes=[code])
        else:
            write_message(f"en-subject-only-{i + 1:02d}", brand, subject,
                          html=html_page(brand, f"<p>{body}</p>"), expected_codes=[code])


def disagreeing_parts():
    """multipart/alternative whose parts do not say the same."""
    for i in range(8):
        brand = rng.choice(BRANDS)
        code = digits(6)
        subject = f"Your {brand[0]} verification code"
        variant = i % 4
        if variant == 0:  # a text part that only says to view the HTML
            text = (f"Your email client cannot display this message. View it in your browser: "
                    f"https://{brand[1]}/view/{token(24)}")
            html = html_page(brand, f"<p>Your verification code is</p>{code_block(code)}")
        elif variant == 1:  # the code in the text, the HTML only an image of it
            text = f"Your verification code is {code}\n\nIt expires in 10 minutes."
            html = html_page(brand, f'<p>Your verification code:</p><img src="https://{brand[1]}/code/{token(20)}.png" '
                                    f'alt="verification code image" width="200">')
        elif variant == 2:  # the text part empty of codes but full of numbers, the HTML with the code
            text = (f"{brand[0]}\n{address()}\nCall {phone()}\n\u00a9 {year()}\n\nOpen this email in an HTML client "
                    f"to see your code.")
            html = html_page(brand, f"<p>Enter this code to verify your email:</p>{code_block(code)}")
        else:  # both parts, laid out differently: table cells in HTML, a line in text
            text = f"Verification code: {code}\nValid for 15 minutes."
            html = html_page(brand, f'<table><tr><td>Verification code</td><td style="font-size:22px"><b>{code}</b>'
                                    f'</td></tr><tr><td>Valid for</td><td>15 minutes</td></tr></table>')
        write_message(f"en-disagree-{i + 1:02d}", brand, subject, text=text, html=html, expected_codes=[code],
                      structure=rng.choice(["alternative", "mixed"]))


def html_only_colours():
    """HTML-only mails with colours and hex ids beside the code (the #202123 of openai-cpa PR #153)."""
    for i in range(8):
        brand = rng.choice(BRANDS)
        code = digits(6)
        colour = rng.choice(["#202123", "#10A37F", "#353740", "#6E6E80", "#FF5A5F", "#111827"])
        inner = (f'<h2 style="color:{colour}">Verify your email</h2>'
                 f'<p style="color:{colour};border-bottom:1px solid #ECECF1">Enter this temporary verification code '
                 f'to continue:</p>{code_block(code)}<p style="color:#6E6E80">Request id: '
                 f'{token(8, "0123456789abcdef")}</p><p style="color:{colour}">{colour}</p>')
        write_message(f"en-html-colours-{i + 1:02d}", brand, rng.choice([f"Your {brand[0]} code is {code}",
                                                                         f"Verify your {brand[0]} email"]),
                      html=html_page(brand, inner), expected_codes=[code])


def codes_beside_numbers():
    """A code next to years, order numbers, prices and phone numbers, in one sentence or one table."""
    for i in range(10):
        brand = rng.choice(BRANDS)
        code = digits(6)
        order = digits(8)
        variant = i % 5
        if variant == 0:
            line = f"Your verification code for order {order} is {code}."
        elif variant == 1:
            line = f"To confirm your payment of $1,249.00 on {year()}-03-14, enter the code {code}."
        elif variant == 2:
            line = f"Security code: {code}\nOrder number: {order}\nTotal: EUR 1499.00\nPhone: {phone()}"
        elif variant == 3:
            line = f"Your code is {code}. Your account ending in 4242 was charged 2500 points in {year()}."
        else:
            line = f"Invoice #{order} - use the one-time code {code} to view it. Questions: {phone()}"
        if rng.random() < 0.5:
            write_message(f"en-beside-numbers-{i + 1:02d}", brand, f"{brand[0]} payment confirmation",
                          text=line, expected_codes=[code])
        else:
            write_message(f"en-beside-numbers-{i + 1:02d}", brand, f"{brand[0]} payment confirmation",
                          html=html_page(brand, "".join(f"<p>{x}</p>" for x in line.split("\n"))),
                          expected_codes=[code])


# ---------------------------------------------------------------------------------------------------------------
# Other languages


LANGS = {
    "de": {
        "subjects": ["Ihr Bestätigungscode", "Ihr {b}-Code", "Anmeldung bei {b}"],
        "lines": ["Ihr Bestätigungscode lautet: {c}", "Ihr Sicherheitscode ist {c}.",
                  "Bitte geben Sie den folgenden Code ein:\n\n{c}\n", "{c} ist Ihr {b}-Anmeldecode.",
                  "Ihr Einmalcode: {c}", "Verwenden Sie diesen Verifizierungscode: {c}"],
        "outro": "Der Code ist 10 Minuten gültig. Falls Sie dies nicht angefordert haben, ignorieren Sie diese E-Mail.",
        "charset": "iso-8859-1",
    },
    "es": {
        "subjects": ["Tu código de verificación", "Código de acceso de {b}", "Confirma tu correo"],
        "lines": ["Tu código de verificación es {c}", "Tu código de seguridad: {c}",
                  "Introduce el siguiente código para continuar:\n\n{c}\n", "{c} es tu código de {b}.",
                  "Usa este código para iniciar sesión: {c}"],
        "outro": "El código caduca en 10 minutos. Si no lo solicitaste, ignora este correo.",
        "charset": "utf-8",
    },
    "pt": {
        "subjects": ["Seu código de verificação", "Código de acesso {b}", "Confirme seu e-mail"],
        "lines": ["Seu código de verificação é {c}", "Seu código de acesso: {c}",
                  "Digite o código abaixo para continuar:\n\n{c}\n", "{c} é o seu código do {b}.",
                  "Use este código de confirmação: {c}"],
        "outro": "O código expira em 10 minutos. Se você não solicitou, ignore este e-mail.",
        "charset": "iso-8859-1",
    },
    "fr": {
        "subjects": ["Votre code de vérification", "Code de connexion {b}", "Confirmez votre adresse"],
        "lines": ["Votre code de vérification est : {c}", "Votre code de sécurité : {c}",
                  "Saisissez le code suivant pour continuer :\n\n{c}\n", "{c} est votre code {b}.",
                  "Utilisez ce code de connexion : {c}"],
        "outro": "Ce code expire dans 10 minutes. Si vous n'êtes pas à l'origine de cette demande, ignorez cet e-mail.",
        "charset": "utf-8",
    },
    "zh": {
        "subjects": ["您的验证码", "{b} 验证码", "【{b}】登录验证"],
        "lines": ["您的验证码是{c}，5分钟内有效。", "验证码：{c}", "【{b}】您的登录验证码为 {c}，请勿泄露给他人。",
                  "您正在注册{b}，验证码为：{c}"],
        "outro": "如非本人操作，请忽略此邮件。",
        "charset": "utf-8",
    },
    "ja": {
        "subjects": ["認証コードのお知らせ", "【{b}】確認コード", "ログイン認証コード"],
        "lines": ["認証コード：{c}", "あなたの確認コードは {c} です。", "以下の認証コードを入力してください。\n\n{c}\n",
                  "ワンタイムパスワード：{c}"],
        "outro": "このコードの有効期限は10分です。",
        "charset": "utf-8",
    },
    "ko": {
        "subjects": ["인증번호 안내", "[{b}] 인증 코드", "이메일 인증"],
        "lines": ["인증번호는 [{c}] 입니다.", "인증 코드: {c}", "아래 인증번호를 입력해 주세요.\n\n{c}\n",
                  "{b} 인증코드 {c}"],
        "outro": "인증번호는 10분간 유효합니다.",
        "charset": "utf-8",
    },
}


def other_languages():
    counts = {"de": 9, "es": 9, "pt": 8, "fr": 8, "zh": 6, "ja": 5, "ko": 5}
    for lang, count in counts.items():
        spec = LANGS[lang]
        for i in range(count):
            brand = rng.choice(BRANDS)
            code = digits(rng.choice([6, 6, 6, 4, 8])) if i % 4 else alnum_code(6) if lang in "de es fr" else digits(6)
            line = spec["lines"][i % len(spec["lines"])].format(c=code, b=brand[0])
            if i % 4 == 0 and lang in ("de", "es", "fr") and not any(w in line for w in ("code", "Code", "código")):
                code = digits(6)
                line = spec["lines"][i % len(spec["lines"])].format(c=code, b=brand[0])
            subject = spec["subjects"][i % len(spec["subjects"])].format(b=brand[0])
            text = line + "\n\n" + spec["outro"] + (f"\n\n© {year()} {brand[0]}" if i % 2 else "")
            html = html_page(brand, "".join(f"<p>{x}</p>" for x in line.split("\n") if x.strip())
                             + f"<p>{spec['outro']}</p>")
            shape = i % 3
            charset = spec["charset"]
            if shape == 0:
                write_message(f"{lang}-code-{i + 1:02d}", brand, subject, text=text, expected_codes=[code],
                              charset=charset)
            elif shape == 1:
                write_message(f"{lang}-code-{i + 1:02d}", brand, subject, html=html, expected_codes=[code],
                              charset=charset)
            else:
                write_message(f"{lang}-code-{i + 1:02d}", brand, subject, text=text, html=html,
                              expected_codes=[code], charset=charset)


# ---------------------------------------------------------------------------------------------------------------
# Links: verification, magic links, resets


def link_messages():
    for i in range(12):  # magic links, most behind tracking redirects
        brand = rng.choice(BRANDS)
        target = f"https://app.{brand[1]}/auth/magic?token={token(40)}"
        href = tracked(brand[1], target) if i % 3 else target
        label = rng.choice([f"Sign in to {brand[0]}", "Log in", "Sign in", f"Log in to {brand[0]}",
                            "Click here to sign in", "Sign in with magic link"])
        unsub, footer_html, footer_text = footer_links(brand[1])
        html = html_page(brand, f"<p>Click the button below to sign in to your {brand[0]} account. This link expires "
                                f"in 15 minutes and can only be used once.</p>{button(href, label)}"
                                f"<p>Or copy and paste this URL into your browser:</p><p>{target}</p>{footer_html}")
        text = (f"Sign in to {brand[0]}\n\nUse this link to sign in:\n{target}\n\nThis link expires in 15 minutes."
                f"\n\n{footer_text}")
        links = [(href, "signIn"), (unsub, "unsubscribe")]
        if i % 2:
            write_message(f"link-magic-{i + 1:02d}", brand, f"Your {brand[0]} sign-in link", html=html, links=links)
        else:
            write_message(f"link-magic-{i + 1:02d}", brand, f"Sign in to {brand[0]}", text=text, html=html,
                          links=links)
    for i in range(10):  # verify / confirm email
        brand = rng.choice(BRANDS)
        target = f"https://{brand[1]}/verify-email?token={token(36)}&uid={digits(7)}"
        href = tracked(brand[1], target) if i % 2 else target
        label = rng.choice(["Verify email address", "Confirm your email", "Confirm my account", "Activate account",
                            "Verify my email", "Confirm email address"])
        html = html_page(brand, f"<h2>Almost there!</h2><p>Please confirm that {rng.choice(RECIPIENTS)} is your email "
                                f"address.</p>{button(href, label)}<p>This link expires in 24 hours.</p>")
        codes = []
        if i % 4 == 3:
            code = digits(6)
            codes = [code]
            html = html.replace("<h2>Almost there!</h2>", f"<h2>Almost there!</h2><p>Your verification code is</p>"
                                                          f"{code_block(code)}<p>Or click the button:</p>")
        if i % 3 == 0:
            text = f"Confirm your email address by opening this link:\n\n{target}\n\nThis link expires in 24 hours."
            if codes:
                text = f"Your verification code is {codes[0]}.\n\n" + text
            write_message(f"link-verify-{i + 1:02d}", brand, f"Verify your email for {brand[0]}", text=text,
                          html=html, links=[(href, "verify")], expected_codes=codes)
        else:
            write_message(f"link-verify-{i + 1:02d}", brand, f"Please confirm your {brand[0]} account", html=html,
                          links=[(href, "verify")], expected_codes=codes)
    for i in range(10):  # password resets
        brand = rng.choice(BRANDS)
        target = f"https://{brand[1]}/account/reset-password/{token(32)}"
        href = tracked(brand[1], target) if i % 3 == 1 else target
        label = rng.choice(["Reset password", "Reset your password", "Choose a new password", "Change password"])
        if label == "Choose a new password":
            label = "Reset my password"
        codes = []
        body = (f"<p>We received a request to reset the password for your {brand[0]} account.</p>"
                f"{button(href, label)}<p>If you didn't ask, ignore this email; your password won't change.</p>")
        if i % 5 == 4:
            code = digits(6)
            codes = [code]
            body = f"<p>Your password reset code is <b>{code}</b>.</p>" + body
        html = html_page(brand, body)
        if i % 2:
            text = (f"Reset your password\n\nOpen this link to choose a new password:\n{target}\n\n"
                    f"The link expires in 1 hour.")
            if codes:
                text = f"Your password reset code is {codes[0]}.\n\n" + text
            write_message(f"link-reset-{i + 1:02d}", brand, f"Reset your {brand[0]} password", text=text, html=html,
                          links=[(href, "reset")], expected_codes=codes)
        else:
            write_message(f"link-reset-{i + 1:02d}", brand, f"{brand[0]} password reset", html=html,
                          links=[(href, "reset")], expected_codes=codes)
    lang_links = [
        ("de", "E-Mail-Adresse bestätigen", "verify", "Bestätigen Sie Ihre E-Mail-Adresse"),
        ("de", "Passwort zurücksetzen", "reset", "Passwort zurücksetzen"),
        ("es", "Confirmar mi correo", "verify", "Confirma tu correo electrónico"),
        ("es", "Iniciar sesión", "signIn", "Tu enlace para iniciar sesión"),
        ("pt", "Redefinir senha", "reset", "Redefinição de senha"),
        ("pt", "Confirmar e-mail", "verify", "Confirme seu e-mail"),
        ("fr", "Se connecter", "signIn", "Votre lien de connexion"),
        ("fr", "Réinitialiser le mot de passe", "reset", "Réinitialisation du mot de passe"),
        ("ja", "メールアドレスを確認する", "verify", "メールアドレスの確認"),
        ("zh", "验证邮箱", "verify", "请验证您的邮箱"),
        ("ko", "로그인", "signIn", "로그인 링크"),
    ]
    for i, (lang, label, kind, subject) in enumerate(lang_links):
        brand = rng.choice(BRANDS)
        target = f"https://{brand[1]}/{lang}/a/{token(30)}"
        href = tracked(brand[1], target) if i % 2 else target
        html = html_page(brand, f"<p>{subject}</p>{button(href, label)}")
        write_message(f"link-{lang}-{kind}-{i + 1:02d}", brand, subject, html=html, links=[(href, kind)],
                      charset="utf-8")


# ---------------------------------------------------------------------------------------------------------------
# No code at all


def newsletters():
    for i in range(14):
        brand = rng.choice(BRANDS)
        unsub, footer_html, footer_text = footer_links(brand[1])
        promo = alnum_code(rng.choice([6, 8]))
        articles = [rng.choice([
            f"Our {year()} roadmap: 12 features shipping this spring",
            f"How we cut build times by 47% in {year()}",
            f"Top 10 tips for your {year()} planning",
            f"Meet the team behind version 4.2.1",
            f"Webinar recap: 1500 attendees and counting",
            f"Save 20% with promo code {promo} until March 31",
            f"Our {year()} annual report is out",
        ]) for _ in range(3)]
        html = html_page(brand, "<h1>{} Weekly #{} </h1>".format(brand[0], digits(3))
                         + "".join(f'<h3><a href="https://{brand[1]}/blog/{token(10).lower()}">{a}</a></h3>'
                                   f"<p>Read more on our blog.</p>" for a in articles)
                         + f'<h2 style="font-size:28px">{year()}</h2>' + footer_html,
                         preheader=rng.choice([None, "This week at " + brand[0]]))
        text = "\n\n".join(articles) + "\n\n" + footer_text
        headers = f"List-Unsubscribe: <{unsub}>, <mailto:unsubscribe@{brand[1]}>\r\n" if i % 2 else ""
        subject = rng.choice([f"{brand[0]} Weekly: what's new in {year()}", f"Your {year()} year in review",
                              "Don't miss out: 20% off ends Sunday", f"{brand[0]} newsletter #{digits(3)}"])
        if i % 3:
            write_message(f"none-newsletter-{i + 1:02d}", brand, subject, text=text, html=html,
                          links=[(unsub, "unsubscribe")], extra_headers=headers)
        else:
            write_message(f"none-newsletter-{i + 1:02d}", brand, subject, html=html, links=[(unsub, "unsubscribe")],
                          extra_headers=headers)


def receipts():
    for i in range(12):
        brand = rng.choice(BRANDS)
        order = digits(rng.choice([7, 8, 9]))
        items = [(rng.choice(["Wireless Mouse", "USB-C Cable 2m", "Notebook A5", "Coffee Beans 1kg", "Desk Lamp"]),
                  rng.randint(1, 3), rng.randint(5, 250) + rng.choice([0.99, 0.5, 0.0])) for _ in range(rng.randint(1, 4))]
        total = sum(q * p for (_, q, p) in items)
        rows = "".join(f"<tr><td>{n}</td><td>{q}</td><td>${p:.2f}</td></tr>" for (n, q, p) in items)
        lines = "\n".join(f"{n} x{q}  ${p:.2f}" for (n, q, p) in items)
        html = html_page(brand, f"<h2>Thanks for your order!</h2><p>Order number: <b>{order}</b></p>"
                                f"<p>Order date: {rng.randint(1, 28)} March {year()}</p><table>{rows}</table>"
                                f"<p><b>Total: ${total:.2f}</b></p><p>Paid with Visa ending in {digits(4)}</p>"
                                f'<p><a href="https://{brand[1]}/orders/{order}">View your order</a></p>'
                                f"<p>Confirmation number: {alnum_code(8)}</p>")
        text = (f"Thanks for your order!\n\nOrder #{order}\n{lines}\n\nTotal: ${total:.2f}\n"
                f"Paid with card ending in {digits(4)}\nView order: https://{brand[1]}/orders/{order}")
        subject = rng.choice([f"Your {brand[0]} order #{order}", f"Receipt for order {order}",
                              f"Order confirmation - {order}", f"Your receipt from {brand[0]} #{digits(4)}-{digits(4)}"])
        write_message(f"none-receipt-{i + 1:02d}", brand, subject, text=text if i % 2 else None, html=html,
                      structure="mixed" if i % 3 == 0 else None)


def shipping():
    carriers = [("UPS", lambda: "1Z" + alnum_code(6) + digits(10)), ("USPS", lambda: " ".join(digits(4) for _ in range(5)) + " " + digits(2)),
                ("DHL", lambda: digits(10)), ("FedEx", lambda: digits(12)), ("Correios", lambda: "BR" + digits(9) + "BR")]
    for i in range(10):
        brand = rng.choice(BRANDS)
        carrier, number = rng.choice(carriers)
        tracking = number()
        body = (f"Good news! Your order {digits(8)} has shipped with {carrier}.\n\nTracking number: {tracking}\n"
                f"Estimated delivery: {rng.randint(1, 28)}/{rng.randint(1, 12)}/{year()} between 9:00 and 17:00\n"
                f"Ship to: {address()}")
        html = html_page(brand, "".join(f"<p>{x}</p>" for x in body.split("\n") if x)
                         + f'<p><a href="https://{brand[1]}/track/{tracking.replace(" ", "")}">Track your package</a></p>')
        write_message(f"none-shipping-{i + 1:02d}", brand, rng.choice(["Your order has shipped",
                                                                       f"Shipped: order {digits(8)}",
                                                                       "Out for delivery today"]),
                      text=body if i % 2 else None, html=html)


def calendar_invites():
    for i in range(8):
        brand = rng.choice(BRANDS)
        meeting = f"{digits(3)} {digits(4)} {digits(4)}"
        passcode = digits(6)
        text = (f"{brand[0]} is inviting you to a scheduled Zoom meeting.\n\nTopic: Quarterly review\n"
                f"Time: Mar {rng.randint(1, 28)}, {year()} 10:00 AM Pacific Time (US and Canada)\n\n"
                f"Join Zoom Meeting\nhttps://zoom.example/j/{meeting.replace(' ', '')}?pwd={token(20)}\n\n"
                f"Meeting ID: {meeting}\nPasscode: {passcode}\n\nDial by your location\n"
                f"        +1 669 900 6833 US (San Jose)\n        +1 646 558 8656 US (New York)\n"
                f"Find your local number: https://zoom.example/u/{token(8)}")
        ics = (f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nDTSTART:{year()}0314T170000Z\r\n"
               f"DTEND:{year()}0314T180000Z\r\nSUMMARY:Quarterly review\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        boundary = "=_" + token(20)
        name = f"none-calendar-{i + 1:02d}"
        head = (f"From: {brand[0]} Calendar <calendar@{brand[1]}>\r\nTo: {rng.choice(RECIPIENTS)}\r\n"
                f"Subject: Invitation: Quarterly review @ Thu Mar 14, {year()} 10am - 11am\r\n"
                f"Date: Tue, 12 Mar 2024 08:00:00 +0000\r\nMIME-Version: 1.0\r\n"
                f"Content-Type: multipart/mixed; boundary=\"{boundary}\"\r\n\r\n")
        body = (head + f"--{boundary}\r\n" + leaf("text/plain", text, "quoted-printable", "utf-8")
                + f"\r\n--{boundary}\r\nContent-Type: text/calendar; charset=utf-8; method=REQUEST\r\n\r\n{ics}"
                f"--{boundary}--\r\n")
        messages.append((name, body, {"codes": [], "links": []}))


def other_no_code():
    """Security alerts, welcomes, statements, notifications: numbers and code words, but no code."""
    templates = [
        ("New sign-in to your {b} account", "We noticed a new sign-in to your {b} account on {d}.\n\n"
         "Device: Chrome 124 on Windows 11\nLocation: Berlin, Germany\nIP address: 198.51.100.23\nTime: 14:32 UTC\n\n"
         "If this was you, you don't need to do anything. If not, secure your account."),
        ("Your password was changed", "The password for your {b} account was changed on {d} at 09:15.\n\n"
         "If you did not make this change, contact support at {p}."),
        ("Welcome to {b}!", "Thanks for joining {b}. Your account is ready.\n\nYour customer number is {n}.\n"
         "Our support line is open 24/7: {p}.\n\n{a}"),
        ("Your {b} statement is ready", "Your statement for account ending in {f} is ready.\n\n"
         "Balance: $4,210.55\nMinimum payment: $35.00 due {d}\nReference: {n}"),
        ("You have 12 new notifications", "You have 12 new notifications and 3 messages on {b}.\n\n"
         "Your profile was viewed 1284 times this week."),
        ("Your ticket #{n} has been updated", "Hello,\n\nTicket {n} was updated by our support team.\n"
         "Case reference: {n}\n\nReply to this email to add a comment."),
        ("Flight confirmation {r}", "Your booking is confirmed.\n\nBooking reference: {r}\nFlight OA 815 "
         "departs {d} at 16:45 from gate 23.\nSeat 42F\nTotal paid: EUR 1,284.00"),
        ("Your subscription renews soon", "Your {b} Pro plan renews on {d} for $119.88/year.\n\n"
         "Invoice INV-{y}-{f} will be emailed to you.\nVAT number: DE{n}"),
        ("Your promo code inside", "Thanks for being a customer! Use promo code {r} at checkout for 15% off "
         "orders over $50.\n\nOffer valid until {d}."),
        ("Your referral code", "Invite friends to {b} with your referral code {r} and earn 500 points each."),
        ("Error report", "Build 4821 failed with error code 137 on runner 12.\n\nCommit a1b2c3d at {d} 03:14."),
        ("Your {b} gift card", "You received a $50 gift card!\n\nGift card code: {r}\nPIN: see the card back."),
    ]
    for i in range(24):
        brand = rng.choice(BRANDS)
        subject, body = templates[i % len(templates)]
        fill = dict(b=brand[0], d=f"{rng.randint(1, 28)} March {year()}", p=phone(), n=digits(8), a=address(),
                    f=digits(4), r=alnum_code(6), y=year())
        subject = subject.format(**fill)
        body = body.format(**fill)
        if i % 2:
            write_message(f"none-notice-{i + 1:02d}", brand, subject, text=body)
        else:
            write_message(f"none-notice-{i + 1:02d}", brand, subject,
                          html=html_page(brand, "".join(f"<p>{x}</p>" for x in body.split("\n") if x)))


# ---------------------------------------------------------------------------------------------------------------
# Second batch: the shapes of well-known senders' mails (paraphrased, brands fictional), and hard negatives.


def html_lines(brand, lines, code=None):
    """HTML paragraphs; the line equal to `code` set as the sender's code box."""
    return html_page(brand, "".join(code_block(x) if code and x == code else f"<p>{x}</p>" for x in lines if x))


def sender_shapes():
    shapes = []  # (subject, lines, code, where): where = text, html or both

    def add(subject, lines, code, where=None):
        shapes.append((subject, lines, code, where or rng.choice(["text", "html", "both"])))

    c = digits(8)
    add("[{b}] Your launch code", ["Hey agent7!", "Here is your {b} launch code: " + c,
                                   "If you did not try to sign in, change your password at once."], c)
    c = f"{alnum_code(3)}-{alnum_code(3)}"
    add("{b} confirmation code: " + c, ["Confirm your email address",
                                         "Your confirmation code is below — enter it in your open browser window and "
                                         "we'll help you get signed in.", c,
                                         "If you didn't request this email, there's nothing to worry about."], c, "html")
    c = digits(7)
    add("{b} account security code", ["{b} account", "Security code",
                                      "Please use the following security code for the {b} account ag***@postern.example.",
                                      "Security code: " + c, "If you don't recognize the account, you can click here to "
                                      "remove your email address from that account.", "Thanks,", "The {b} account team"], c)
    c = digits(6)
    add("Verify your Apple-style ID email address", ["Verify your email address",
                                                     "You have selected this email address as your new ID. To verify "
                                                     "this email address belongs to you, enter the code below on the "
                                                     "email verification page:", c,
                                                     "This code will expire three hours after this email was sent.",
                                                     "Why you received this email.",
                                                     "{b} requires verification whenever an email address is selected."], c)
    c = digits(6)
    add("Your one-time password", ["Verify your new account", "To verify your identity, please use the following code:",
                                   c, "We take your account security very seriously. We will never email you and ask "
                                      "you to disclose or verify your password, credit card, or banking account number."], c)
    c = digits(5)
    add("{b}: Login Code", ["Login Code", "Dear agent7,", "Here is the login code you requested:", c,
                            "This email was generated because of a login attempt from a web or mobile device located "
                            "at 203.0.113.55 (PT).", "If you are not attempting to login, please change your password."],
        c)
    c = alnum_code(5)
    add("Your {b} account: access from new computer", ["Dear agent7,",
                                                       "Here is the code you need to login:", c,
                                                       "This email was generated because of a login attempt from a web "
                                                       "browser located at 198.51.100.7 (DE).",
                                                       "The login code is required to complete the login."], c)
    c = digits(6)
    add("Your {b} OTP", [f"Your OTP for transaction of INR 5,000.00 at AMAZON RETAIL on card ending 4821 is {c}. "
                         f"Valid for 5 mins. Do not share it with anyone.", "Regards,", "{b} Bank"], c, "text")
    c = digits(6)
    add("[{b}] Confirm Your Registration", ["[{b}] Confirm Your Registration", "Welcome to {b}!",
                                            "Your verification code:", c,
                                            "The verification code will be valid for 30 minutes. Please do not share "
                                            "this code with anyone.",
                                            "Don't recognize this activity? Please reset your password and contact "
                                            "customer support immediately.",
                                            "This is an automated message, please do not reply."], c)
    c = digits(4)
    add("Your {b} code", ["Your {b} code: " + c, "Never share this code. {b} will never call to ask for it."], c, "text")
    c = f"{digits(3)}-{digits(3)}"
    add("Your {b} verification code", ["Your {b} verification code is:", c,
                                       "This code will expire in 10 minutes. Don't share this code with anyone; our "
                                       "employees will never ask for the code."], c)
    c = digits(6)
    add("Your {b} Security Code", ["Hello,", "Your security code " + c,
                                   "Use this code to verify your identity. This code will expire in 1 hour."], c)
    c = digits(6)
    add("Log in to {b}", ["Your login code for {b} is " + c, "This code expires in 10 minutes."], c)
    c = digits(6)
    add("{b} - Account Verification Code",
        ["Hi agent7,", "Someone tried to sign up for a {b} account with agent7@postern.example. If it was you, enter "
                       "this confirmation code in the app:", c], c)
    c = digits(6)
    add("{c} is your {b} verification code".replace("{c}", c),
        ["To verify your account, enter this code in {b}:", c, "Verification codes expire after 48 hours.",
         "If you didn't request a code, you can ignore this message."], c)
    c = digits(5)
    add("{b} login code", [f"Your login code: {c}", "Do not give this code to anyone, even if they say they are from "
                                                   "{b}!", "This code can be used to log in to your {b} account. We "
                                                           "never ask it for anything else."], c, "text")
    c = digits(6)
    add("Your {b} security code", ["Hi agent7,", "Your security code is: " + c,
                                   "Enter this code in your browser to finish signing in.",
                                   "Didn't try to sign in? Let us know."], c)
    c = digits(6)
    add("Here's your verification code " + c, ["Here's your verification code " + c,
                                               "Please use this code within 10 minutes to finish.",
                                               "{b} Corporation, 1000 W Maude Ave, Sunnyvale, CA 94085"], c)
    c = digits(6)
    add("Verification code", ["Verification code", c, "Use this code to finish setting up your {b} account.",
                              "This code will expire in 10 minutes."], c, "html")
    c = digits(6)
    add("{b}: Your sign-in code", ["Enter this code to complete your login:", c,
                                   "Your code expires at 10:42 AM UTC.",
                                   "You're receiving this email because a sign-in was attempted on {b}."], c)
    c = digits(6)
    add("Magic Link", ["Magic Link", "Follow this link to login:", "Alternatively, enter the code: " + c], c, "html")
    for subject, lines, code, where in shapes:
        brand = rng.choice(BRANDS)
        subject = subject.replace("{b}", brand[0])
        lines = [x.replace("{b}", brand[0]) for x in lines]
        name = f"sender-code-{len([m for m in messages if m[0].startswith('sender-code')]) + 1:02d}"
        text = "\n\n".join(lines)
        if where == "text":
            write_message(name, brand, subject, text=text, expected_codes=[code])
        elif where == "html":
            write_message(name, brand, subject, html=html_lines(brand, lines, code), expected_codes=[code])
        else:
            write_message(name, brand, subject, text=text, html=html_lines(brand, lines, code), expected_codes=[code],
                          structure=rng.choice(["alternative", "related"]))
    # A code one digit a cell.
    for i in range(3):
        brand = rng.choice(BRANDS)
        code = digits(6)
        cells = "".join(f'<td style="border:1px solid #DADCE0;font-size:28px;width:40px;text-align:center">{d}</td>'
                        for d in code)
        html = html_page(brand, f"<p>Use this verification code to sign in to {brand[0]}:</p>"
                                f"<table><tr>{cells}</tr></table><p>The code expires in 15 minutes.</p>")
        write_message(f"sender-code-cells-{i + 1:02d}", brand, f"{brand[0]} sign-in verification", html=html,
                      expected_codes=[code])


def sender_links():
    cases = []
    for i in range(14):
        brand = rng.choice(BRANDS)
        t = token(40)
        kind = i % 7
        if kind < 3:  # a hosted-auth service's sign-up confirmation, magic link and reset, one template each
            flow, subject, heading, sentence, label, link_kind = [
                ("signup", "Confirm Your Signup", "Confirm your signup", "Follow this link to confirm your user:",
                 "Confirm your mail", "verify"),
                ("magiclink", "Your Magic Link", "Magic Link", "Follow this link to login:", "Log In", "signIn"),
                ("recovery", "Reset Your Password", "Reset Password",
                 "Follow this link to reset the password for your user:", "Reset Password", "reset"),
            ][kind]
            url = f"https://{token(20).lower()}.auth.{brand[1]}/auth/v1/verify?token={t}&type={flow}&redirect_to=https://{brand[1]}"
            html = f"<h2>{heading}</h2><p>{sentence}</p><p><a href=\"{url}\">{label}</a></p>"
            cases.append((brand, subject, None, html, [(url, link_kind)]))
        elif kind == 3:  # an app-platform action link, its text the URL itself
            url = f"https://{brand[1]}/__/auth/action?mode=verifyEmail&oobCode={t}&apiKey={token(39)}&lang=en"
            text = (f"Hello,\n\nFollow this link to verify your email address.\n\n{url}\n\nIf you didn't ask to verify "
                    f"this address, you can ignore this email.\n\nThanks,\n\nYour {brand[0]} team")
            html = text.replace("\n\n", "</p><p>").replace(url, f'<a href="{url}">{url}</a>')
            cases.append((brand, f"Verify your email for {brand[0]}", text, f"<p>{html}</p>", [(url, "verify")]))
        elif kind == 4:  # a blog platform's password reset, in plain text
            url = f"https://{brand[1]}/wp-login.php?action=rp&key={token(20)}&login=agent7"
            text = (f"Someone has requested a password reset for the following account:\n\nSite Name: {brand[0]}\n\n"
                    f"Username: agent7\n\nIf this was a mistake, ignore this email and nothing will happen.\n\n"
                    f"To reset your password, visit the following address:\n\n{url}\n\n"
                    f"This password reset request originated from the IP address 203.0.113.77.")
            cases.append((brand, f"[{brand[0]}] Password Reset", text, None, [(url, "reset")]))
        elif kind == 5:  # a web framework's reset and confirmation mails
            url = f"https://{brand[1]}/users/password/edit?reset_password_token={token(20)}"
            html = (f"<p>Hello agent7@postern.example!</p><p>Someone has requested a link to change your password. You "
                    f"can do this through the link below.</p><p><a href=\"{url}\">Change my password</a></p><p>If you "
                    f"didn't request this, please ignore this email.</p><p>Your password won't change until you access "
                    f"the link above and create a new one.</p>")
            cases.append((brand, "Reset password instructions", None, html, [(url, "reset")]))
        else:
            url = f"https://{brand[1]}/email/verify/{digits(4)}/{token(40, '0123456789abcdef')}?expires={digits(10)}&signature={token(64, '0123456789abcdef')}"
            html = (f"<h1>Hello!</h1><p>Please click the button below to verify your email address.</p>"
                    f"{button(url, 'Verify Email Address')}<p>If you did not create an account, no further action is "
                    f"required.</p><p>Regards,<br>{brand[0]}</p><p>If you're having trouble clicking the \"Verify Email "
                    f"Address\" button, copy and paste the URL below into your web browser: "
                    f"<a href=\"{url}\">{url}</a></p>")
            cases.append((brand, "Verify Email Address", None, html, [(url, "verify")]))
    for i, (brand, subject, text, html, links) in enumerate(cases):
        write_message(f"sender-link-{i + 1:02d}", brand, subject, text=text,
                      html=html_page(brand, html) if html else None, links=links)
    # A double opt-in and a newsletter that is unsubscribed from its header alone.
    brand = rng.choice(BRANDS)
    url = f"https://{brand[1]}/subscribe/confirm?id={token(24)}&list={token(10)}"
    write_message("sender-link-optin", brand, f"{brand[0]}: Please Confirm Subscription",
                  html=html_page(brand, f"<h2>Please Confirm Subscription</h2>{button(url, 'Yes, subscribe me to this list.')}"
                                        f"<p>If you received this email by mistake, simply delete it.</p>"),
                  links=[(url, "verify")])
    brand = rng.choice(BRANDS)
    unsub = f"https://list.{brand[1]}/u/{token(30)}"
    write_message("sender-link-header-unsubscribe", brand, f"{brand[0]} digest: 5 stories for you",
                  html=html_page(brand, "".join(f"<h3><a href=\"https://{brand[1]}/s/{token(8)}\">Story {n}</a></h3>"
                                                for n in range(1, 6))),
                  links=[(unsub, "unsubscribe")],
                  extra_headers=f"List-Unsubscribe: <mailto:leave-{token(12)}@list.{brand[1]}>, <{unsub}>\r\n"
                                f"List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n")


def hard_negatives():
    cases = [
        ("Your verification is complete", "Thanks! Your verification is complete.\n\nOrder {n} is confirmed and will "
                                          "ship on {d}."),
        ("Use code {r} for 25% off", "Spring sale! Use code {r} for 25% off your next order.\n\nShop now."),
        ("Enter code {f} at checkout", "Your exclusive offer: enter code {f} at checkout to get free shipping."),
        ("Your code review is ready", "Your code review is ready: 14 comments on PR {f}.\n\nView the pull request."),
        ("Your Wi-Fi details", "Welcome to the Grand Hotel. Your Wi-Fi password for room {f} is GUEST{f}.\n\nCheck-out "
                               "is at 11:00."),
        ("Lab results available", "Your lab results are ready.\n\nPatient ID: {n}\nCollected: {d} 08:40"),
        ("Ticket for {b} Live", "Your ticket code: {f}-{f2}\nSection 104, Row 12, Seat 7\nDoors open at 19:30."),
        ("Your reservation", "Your reservation code: HM{r}\nCheck-in: {d} after 15:00\nGuests: 2"),
        ("Security alert", "Your password was reset on {d} from IP 203.0.113.9.\n\nIf this wasn't you, contact "
                           "{p} immediately."),
        ("Payment received", "Your one-time payment of $49.00 was received.\n\nTransaction ID: {n}\nDate: {d}"),
        ("Your order has shipped", "Your order # 113-{n7}-{n7} has shipped.\nArriving {d}."),
        ("Market close", "Markets today: NASDAQ 16248 (+1.2%), DAX 18021, Bitcoin 64,213.55.\n\nRead the full report."),
        ("Your account number", "Your account number {n} has been verified. Sort code 20-00-00."),
        ("Appointment reminder", "Your appointment with Dr. Smith is on {d} at 10:30.\nRoom 4B, Building 12.\n"
                                 "Call {p} to reschedule."),
        ("Your {b} gift card", "Gift card number: {n}{f}\nPIN: {f}\nBalance: $25.00"),
        ("Two-factor authentication enabled", "Two-factor authentication is now on for your {b} account since {d}.\n\n"
                                              "Keep your recovery codes in a safe place."),
        ("Webinar: join us on {d}", "Join our webinar on {d} at 17:00 CET.\nWebinar ID: {f} {f2} {f}\n"
                                    "Passcode: {n6}"),
        ("Votre commande {n}", "Merci pour votre commande n° {n}.\nTotal : 49,90 €\nLivraison prévue le {d}."),
        ("Ihre Bestellung", "Vielen Dank für Ihre Bestellung.\nBestellnummer: {n}\nRechnungsbetrag: 129,00 EUR"),
        ("Seu pedido foi enviado", "Seu pedido {n} foi enviado.\nCódigo de rastreamento: BR{n}BR\nCEP: 01310-200"),
        ("Tu factura de {b}", "Tu factura {f}-{f2} está disponible.\nImporte: 59,90 €\nReferencia: {n}"),
        ("您的订单已发货", "您的订单{n}已发货，快递单号：{n}{f}。客服电话：400-820-{f}。"),
        ("ご注文の確認", "ご注文ありがとうございます。注文番号：{n}\n合計金額：5,980円"),
        ("{b} 주문 확인", "주문번호 {n}\n결제 금액 59,000원\n고객센터 1588-{f}"),
    ]
    for i, (subject, body) in enumerate(cases):
        brand = rng.choice(BRANDS)
        fill = dict(b=brand[0], n=digits(8), n6=digits(6), n7=digits(7), f=digits(4), f2=digits(4), r=alnum_code(6),
                    d=f"{rng.randint(1, 28)}.{rng.randint(1, 12)}.{year()}", p=phone())
        subject = subject.format(**fill)
        body = body.format(**fill)
        if i % 2:
            write_message(f"none-hard-{i + 1:02d}", brand, subject, text=body)
        else:
            write_message(f"none-hard-{i + 1:02d}", brand, subject,
                          html=html_page(brand, "".join(f"<p>{x}</p>" for x in body.split("\n") if x)))


# ---------------------------------------------------------------------------------------------------------------
# Third batch: whole mails in prose, as people and products write them, with codes put where prose puts them, and
# everyday mails full of numbers that are not codes.

PROSE_CODES = [
    ("Finish signing in", "Hi {n},\n\nSomeone (hopefully you) is trying to sign in to {b} from a new device. To make "
     "sure it's really you, type the following six digits into the window that asked for them:\n\n{c}\n\nThe digits "
     "stop working in 20 minutes. If this wasn't you, change your password and turn on two-step verification.\n\n"
     "Stay safe,\n{b} Security", "d6"),
    ("{b}: one more step", "Welcome aboard!\n\nBefore we can create your workspace we need to check that this address "
     "is yours. Your confirmation code: {c}\n\nCopy it into the sign-up page. Didn't sign up? Ignore this email; no "
     "account will be created.", "d6"),
    ("Your temporary access code", "Hello,\n\nAs requested, here is a temporary access code for your {b} account:\n\n"
     "    {c}\n\nIt can be used once and expires at midnight. Our support team will never ask you for this code.", "a8"),
    ("Confirm it's you", "We noticed a sign-in attempt from Safari on macOS near Lisbon, Portugal.\n\nIf this was you, "
     "enter this verification code to continue: {c}\n\nIf not, someone may know your password. Reset it now.", "d6"),
    ("{c} - your {b} code", "Your code is in the subject line, and here again: {c}.\n\nRequested on 14 March at "
     "09:41 from 203.0.113.18.", "d6"),
    ("Email verification", "Thanks for registering with {b}.\n\nTo complete registration please verify your email by "
     "entering the code below:\n\nVerification Code: {c}\n\nThis code is valid for the next 30 minutes.\n\nKind "
     "regards,\nThe {b} Team\n{a}", "d6"),
    ("Your {b} passcode", "Your passcode is {c}. It expires in 5 minutes. If you did not request a passcode, call us "
     "right away at {p}.", "d4"),
    ("Two-step verification", "Hi,\n\nYour two-step verification code is {c}\n\nEnter the code on the sign-in page to "
     "finish. Codes are valid for 10 minutes.\n\n{b} Accounts, {a}", "d6"),
    ("Verify your new device", "A new device wants to use your {b} account.\n\nDevice: Pixel 8 (Android 14)\n"
     "Location: Toronto, Canada\n\nIf it's you, approve it with this code:\n{c}\n\nOtherwise you can ignore this "
     "message.", "d8"),
    ("Código de verificación", "Hola,\n\nUsa el siguiente código para verificar tu cuenta de {b}:\n\n{c}\n\nEste "
     "código caduca en 15 minutos. Si no solicitaste este código, puedes ignorar este mensaje.\n\nTeléfono de "
     "atención: {p}", "d6"),
    ("Dein Anmeldecode", "Hallo,\n\nhier ist dein Code für die Anmeldung bei {b}: {c}\n\nGib ihn in der App ein. Er "
     "ist 10 Minuten lang gültig.\n\nViele Grüße\nDein {b}-Team\n{a}", "d6"),
    ("Code de vérification", "Bonjour,\n\nPour finaliser votre inscription, saisissez ce code : {c}\n\nIl expire "
     "dans 10 minutes.\n\nL'équipe {b}", "d6"),
    ("Seu código", "Olá!\n\nPara entrar na sua conta {b}, use o código {c}. Ele é válido por 10 minutos.\n\nSe não "
     "foi você, ignore este e-mail.", "d6"),
    ("【{b}】メールアドレスの確認", "{b}をご利用いただきありがとうございます。\n\n以下の確認コードを画面に入力してください。\n\n確認コード：{c}\n\n"
     "※このコードの有効期限は30分です。", "d6"),
    ("您的{b}登录验证码", "尊敬的用户：\n\n您正在登录{b}，本次验证码为：{c}，有效期10分钟。\n\n请勿将验证码告知他人。如有疑问请致电客服。", "d6"),
]

PROSE_NONE = [
    ("Your April statement", "Hi {n},\n\nYour statement for April is ready. Opening balance $2,410.55, closing "
     "balance $1,987.20. Payment of $120.00 due on May 21.\n\nAccount: ****{f}\nCustomer service: {p}"),
    ("Recipe of the week", "This week: lemon drizzle cake.\n\nPreheat the oven to 180°C (350°F). Mix 225g butter, "
     "225g sugar and 4 eggs. Bake for 45-50 minutes.\n\nServes 8. 420 calories per slice."),
    ("Match report", "What a game! The home side won 3-2 after extra time. Attendance: 48213. Next fixture: "
     "Saturday 15:00 at Riverside Stadium.\n\nSeason ticket holders: your seat number stays the same."),
    ("New listing in your area", "3 bed, 2 bath townhouse at 4821 Maple Avenue, Springfield, IL 62704.\n\n"
     "Price: $425,000\n1,850 sq ft, built 1998\nMLS# {n}\n\nCall {p} to book a viewing."),
    ("Your itinerary", "Flight OA 4821 from LIS to JFK\nDeparts 14:35, arrives 17:10\nTerminal 1, gate 42\n"
     "Booking reference: {r}\nE-ticket number: 047-{n}{f}\n\nCheck in online 24 hours before departure."),
    ("[repo] Build #4821 passed", "Build #4821 passed in 3m 12s.\n\nCommit 9f3e2a1 by agent7: fix flaky test\n"
     "Branch: main\n\nView the build log for details."),
    ("Re: quarterly numbers", "Hi team,\n\nQ1 revenue came in at 1.2M, up 14% on last year. We closed 4821 tickets "
     "and onboarded 312 customers.\n\nThe board meeting is on 20 May at 10:00.\n\nBest,\nDana"),
    ("School newsletter", "Dear parents,\n\nThe spring concert is on 12 April at 18:30 in the main hall. Tickets "
     "cost 5 EUR. Room 214 will be used for the bake sale.\n\nTerm ends on 28 June {y}."),
    ("Your package is on its way", "Your package from {b} is on its way.\n\nTracking: 9400 1118 9922 3197 4284 90\n"
     "Weight: 2.4 kg\nExpected: Thursday, 16 May\n\nDelivery address: {a}"),
    ("Invoice {f}-{y}", "Please find attached invoice {f}-{y}.\n\nAmount due: EUR 1,499.00\nDue date: 30.05.{y}\n"
     "IBAN: DE89 3704 0044 0532 0130 00\nBIC: COBADEFFXXX"),
    ("Welcome to the team!", "Hi {n},\n\nWelcome to {b}! Your employee ID is {n8}. Your desk is on floor 4, "
     "desk 4821.\n\nYour first day starts at 09:00. Bring a photo ID."),
    ("Password changed", "The password for your {b} account was changed on 14 May {y} at 10:42 (UTC).\n\n"
     "If you made this change, you don't need to do anything. Otherwise, secure your account at once."),
    ("Your verification was successful", "Good news! Your identity verification is complete.\n\nReference number: "
     "{n8}\nCompleted: 14.05.{y}\n\nYou can now withdraw up to 10000 EUR per day."),
    ("Your subscription receipt", "Thanks for subscribing to {b} Pro.\n\nPlan: Annual\nAmount: $119.88\n"
     "Card: Visa ending in {f}\nOrder ID: {r}\nNext billing date: 14 May {y}"),
    ("Concert tickets", "Your tickets are attached.\n\nOrder number: {n8}\nEvent: Summer Nights {y}\nDoors: 19:00\n"
     "Block C, row 12, seats 4821-4822"),
    ("Your code of conduct reminder", "Hi {n},\n\nA reminder to read our code of conduct before the {y} offsite.\n"
     "It takes about 15 minutes. Thanks!"),
    ("Your weekly screen time", "Screen time this week: 24h 18m, down 12% from last week.\nPickups: 482\n"
     "Notifications: 1284"),
    ("Weather alert", "Heat advisory until 20:00. Temperatures up to 38°C. UV index 9.\nStay hydrated.\n"
     "Zip code 94043 area affected."),
]


def prose():
    names = ["Alex", "Sam", "Priya", "Jonas", "Maria", "Kenji", "Chloé", "Tomás"]
    for i, (subject, body, shape) in enumerate(PROSE_CODES):
        brand = rng.choice(BRANDS)
        kind, n = shape[0], int(shape[1])
        code = digits(n) if kind == "d" else alnum_code(n)
        fill = dict(n=rng.choice(names), b=brand[0], c=code, a=address(), p=phone())
        subject = subject.format(**fill)
        body = body.format(**fill)
        where = i % 3
        html = html_page(brand, "".join((code_block(x.strip()) if x.strip() == code else f"<p>{x}</p>")
                                        for x in body.split("\n") if x.strip()))
        name = f"prose-code-{i + 1:02d}"
        if where == 0:
            write_message(name, brand, subject, text=body, expected_codes=[code])
        elif where == 1:
            write_message(name, brand, subject, html=html, expected_codes=[code])
        else:
            write_message(name, brand, subject, text=body, html=html, expected_codes=[code])
    for i, (subject, body) in enumerate(PROSE_NONE):
        brand = rng.choice(BRANDS)
        fill = dict(n=rng.choice(names), b=brand[0], a=address(), p=phone(), f=digits(4), n8=digits(8), r=alnum_code(6),
                    y=year())
        fill["n"] = fill["n"] if "{n8}" in body or "Hi {n}" in body else digits(8)
        subject = subject.format(**fill)
        body = body.format(**fill)
        if i % 2:
            write_message(f"prose-none-{i + 1:02d}", brand, subject, text=body)
        else:
            write_message(f"prose-none-{i + 1:02d}", brand, subject,
                          html=html_page(brand, "".join(f"<p>{x}</p>" for x in body.split("\n") if x.strip())))


# ---------------------------------------------------------------------------------------------------------------
# Fourth batch: the issue's shapes again, built differently: parts with two different codes, hex ids and colours
# written into the text, codes between phone numbers and prices in one table, hyphenated and spaced letters and
# digits, encoded words in the subject only, and more mails without a code (calendar invites in prose, receipts as
# tables, shipping notices in other languages).


def fourth_batch():
    # multipart/alternative whose parts give two codes: the text part's is the answer.
    for i in range(4):
        brand = rng.choice(BRANDS)
        text_code, html_code = digits(6), digits(6)
        text = f"Your {brand[0]} sign-in code is {text_code}.\n\nIt expires in 10 minutes."
        html = html_page(brand, f"<p>Your sign-in code:</p>{code_block(html_code)}")
        write_message(f"mixed-disagree-codes-{i + 1:02d}", brand, f"{brand[0]} sign-in", text=text, html=html,
                      expected_codes=[text_code])
    # Hex ids, colours and request ids around a code, in text and in HTML.
    for i in range(6):
        brand = rng.choice(BRANDS)
        code = digits(6) if i % 2 else alnum_code(6)
        hexes = [token(6, "0123456789ABCDEF"), token(8, "0123456789abcdef"), "#" + token(6, "0123456789ABCDEF")]
        lines = [f"Request {hexes[1]} from session {hexes[0].lower()}", f"Your verification code is {code}",
                 f"Theme colour {hexes[2]}", f"Trace-Id: {token(16, '0123456789abcdef')}"]
        rng.shuffle(lines)
        if i % 2:
            write_message(f"mixed-hex-{i + 1:02d}", brand, "Your code", text="\n".join(lines), expected_codes=[code])
        else:
            html = html_page(brand, "".join(f'<p style="color:{hexes[2]}">{x}</p>' for x in lines))
            write_message(f"mixed-hex-{i + 1:02d}", brand, "Your code", html=html, expected_codes=[code])
    # One table with a code, a phone number, a price and a date.
    for i in range(4):
        brand = rng.choice(BRANDS)
        code = digits(rng.choice([6, 8]))
        rows = [("Verification code", code), ("Support", phone()), ("Plan", f"${rng.randint(5, 99)}.00 / month"),
                ("Requested", f"{rng.randint(1, 28)}/{rng.randint(1, 12)}/{year()} {rng.randint(0, 23)}:{rng.randint(10, 59)}"),
                ("Account", f"ID {digits(8)}")]
        rng.shuffle(rows)
        html = html_page(brand, "<table>" + "".join(f"<tr><td>{a}</td><td><b>{b}</b></td></tr>" for a, b in rows)
                         + "</table>")
        write_message(f"mixed-table-{i + 1:02d}", brand, f"{brand[0]} security", html=html, expected_codes=[code])
    # Letters and digits, grouped.
    for i in range(4):
        brand = rng.choice(BRANDS)
        code = rng.choice([f"{alnum_code(4)}-{alnum_code(4)}", f"{alnum_code(3)} {digits(3)}" if False else
                           f"{alnum_code(3)}-{alnum_code(3)}", alnum_code(8), f"{digits(4)} {digits(4)}"])
        text = f"Use this one-time code to finish signing in:\n\n{code}\n\nIt is valid for 15 minutes."
        write_message(f"mixed-grouped-{i + 1:02d}", brand, "One-time code", text=text, expected_codes=[code])
    # The code only in an encoded subject; the body a greeting.
    for i, subject in enumerate(["Código de verificación: {c}", "Ihr Code lautet {c}", "{c} é o seu código",
                                 "验证码：{c}"]):
        brand = rng.choice(BRANDS)
        code = digits(6)
        write_message(f"mixed-subject-encoded-{i + 1:02d}", brand, subject.format(c=code),
                      text="Hello,\n\nsee the subject line.\n", expected_codes=[code], subject_style="b")
    # No code: an invite in prose, a receipt as a table, shipping notices in German, Spanish, French.
    for i in range(3):
        brand = rng.choice(BRANDS)
        text = (f"Hi team,\n\nLet's meet on Thursday 14 March {year()} at 15:00 CET to review the Q1 plan.\n"
                f"Room 4.12 or online: https://meet.{brand[1]}/abc-defg-hij\nDial-in: +49 30 5557 {digits(4)}, "
                f"PIN {digits(6)}#\n\nAgenda: 1. numbers 2. hiring 3. AOB")
        write_message(f"none-invite-prose-{i + 1:02d}", brand, f"Invitation: Q1 review ({year()})", text=text)
    for i in range(3):
        brand = rng.choice(BRANDS)
        rows = [("Item", "Qty", "Price"), ("Monitor 27\"", "1", "$329.00"), ("HDMI cable", "2", "$19.98"),
                ("Subtotal", "", "$348.98"), ("Tax (8.25%)", "", "$28.79"), ("Total", "", "$377.77")]
        html = html_page(brand, f"<h2>Receipt #{digits(4)}-{digits(4)}</h2><table>"
                         + "".join(f"<tr><td>{a}</td><td>{b}</td><td>{c}</td></tr>" for a, b, c in rows)
                         + f"</table><p>Auth code: {digits(6)}</p><p>Terminal {digits(8)}</p>")
        write_message(f"none-receipt-table-{i + 1:02d}", brand, f"Your {brand[0]} receipt", html=html)
    for i, body in enumerate([
        "Ihr Paket ist unterwegs.\nSendungsnummer: 00340434{n}\nVoraussichtliche Zustellung: 15.03.{y}",
        "Tu pedido {n} ha sido enviado.\nNúmero de seguimiento: {n}{f}\nEntrega estimada: 15/03/{y}",
        "Votre colis est en route.\nNuméro de suivi : 6A{n}\nLivraison prévue le 15/03/{y}",
    ]):
        brand = rng.choice(BRANDS)
        body = body.format(n=digits(8), f=digits(4), y=year())
        write_message(f"none-shipping-lang-{i + 1:02d}", brand, body.split("\n")[0], text=body)


# ---------------------------------------------------------------------------------------------------------------
# Fifth batch: newsletters whose big bold numbers sit under a sign-in button, codes sent to masked phone numbers,
# card receipts with approval codes, and plain-text codes in asterisks.


def fifth_batch():
    for i in range(6):
        brand = rng.choice(BRANDS)
        unsub, footer_html, _ = footer_links(brand[1])
        stat_a, stat_b = digits(rng.choice([4, 5, 6])), digits(6)
        promo = rng.choice(["THANKS", "SPRING", "WELCOME", "HOLIDAY"]) + rng.choice(["10", "15", "20", "24"])
        sign_in = tracked(brand[1], f"https://{brand[1]}/account")
        inner = (f'<h1 style="font-size:40px">Your {year()} in numbers</h1>'
                 f'<table><tr><td><h2 style="font-size:32px">{stat_a}</h2><p>orders shipped</p></td>'
                 f'<td><h2 style="font-size:32px">{int(stat_b):,}</h2><p>happy customers</p></td></tr></table>'
                 f'<p>Members get early access. Sign in to see your personalised picks.</p>'
                 f'<p><a href="{sign_in}">See my picks</a></p>'
                 f'<p style="font-size:24px"><b>{stat_b}</b></p><p>people joined the community this year.</p>'
                 f'<p>Use code <b>{promo}</b> for 15% off everything.</p>{footer_html}')
        subject = rng.choice([f"Use code {promo} for 15% off", f"Your {year()} in numbers", "Sign in for early access"])
        write_message(f"none-stats-newsletter-{i + 1:02d}", brand, subject, html=html_page(brand, inner),
                      links=[(unsub, "unsubscribe")])
    for i in range(4):
        brand = rng.choice(BRANDS)
        code = digits(6)
        masked = rng.choice([f"+1 *** *** {digits(4)}", f"•••• {digits(4)}", f"XXX-XXX-{digits(4)}",
                             f"(***) ***-{digits(4)}"])
        text = (f"We sent a text message to {masked}.\n\nIf you didn't get it, use this verification code "
                f"instead: {code}\n\nThe code expires in 10 minutes.")
        write_message(f"masked-phone-code-{i + 1:02d}", brand, f"{brand[0]} verification", text=text,
                      expected_codes=[code])
    for i in range(3):
        brand = rng.choice(BRANDS)
        label = rng.choice(["Approval code", "Auth code", "Authorization code"])
        body = (f"{brand[0]} Coffee\nCard: VISA **** {digits(4)}\nAmount: $4.50\n{label}: {digits(6)}\n"
                f"Terminal ID: {digits(8)}\nThank you for your visit!")
        write_message(f"none-card-receipt-{i + 1:02d}", brand, f"Receipt from {brand[0]} Coffee", text=body)
    for i in range(3):
        brand = rng.choice(BRANDS)
        code = digits(6)
        text = f"# {brand[0]}\n\nYour sign-in code is **{code}**\n\n_It expires in 10 minutes._"
        write_message(f"markdown-code-{i + 1:02d}", brand, f"{brand[0]} sign-in code", text=text,
                      expected_codes=[code])


def main():
    en_codes()
    prefixed_codes()
    subject_only()
    disagreeing_parts()
    html_only_colours()
    codes_beside_numbers()
    other_languages()
    link_messages()
    newsletters()
    receipts()
    shipping()
    calendar_invites()
    other_no_code()
    sender_shapes()
    sender_links()
    hard_negatives()
    prose()
    fourth_batch()
    fifth_batch()
    for old in os.listdir(HERE):
        if old.endswith(".eml") or old.endswith(".expected.json"):
            os.remove(os.path.join(HERE, old))
    names = set()
    for name, body, expected in messages:
        assert name not in names, name
        names.add(name)
        with open(os.path.join(HERE, name + ".eml"), "w", newline="", encoding="utf-8") as out:
            out.write(body)
        with open(os.path.join(HERE, name + ".expected.json"), "w", encoding="utf-8") as out:
            json.dump(expected, out, ensure_ascii=False, indent=1)
            out.write("\n")
    with_code = sum(1 for _, _, e in messages if e["codes"])
    print(f"{len(messages)} messages, {with_code} with a code, {len(messages) - with_code} without")


if __name__ == "__main__":
    main()
