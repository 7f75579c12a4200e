// Postern passkeys: registration and sign-in forms. Served from the binary; no framework, no request to anywhere else.
(function () {
  "use strict";
  if (!window.PublicKeyCredential || !navigator.credentials || !window.fetch) { return; }

  function toBytes(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) { base64 += "="; }
    var binary = atob(base64), bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    return bytes.buffer;
  }

  function toText(buffer) {
    var bytes = new Uint8Array(buffer), binary = "";
    for (var i = 0; i < bytes.length; i++) { binary += String.fromCharCode(bytes[i]); }
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  // The options the server wrote, binary members turned into buffers.
  function creationOptions(json) {
    json.challenge = toBytes(json.challenge);
    json.user.id = toBytes(json.user.id);
    json.excludeCredentials = (json.excludeCredentials || []).map(function (c) {
      return { type: c.type, id: toBytes(c.id) };
    });
    return json;
  }

  function requestOptions(json) {
    json.challenge = toBytes(json.challenge);
    json.allowCredentials = [];
    return json;
  }

  // The credential as JSON, every binary member base64url.
  function credentialJSON(credential) {
    var r = credential.response, response = { clientDataJSON: toText(r.clientDataJSON) };
    if (r.attestationObject) { response.attestationObject = toText(r.attestationObject); }
    if (r.authenticatorData) { response.authenticatorData = toText(r.authenticatorData); }
    if (r.signature) { response.signature = toText(r.signature); }
    if (r.userHandle) { response.userHandle = toText(r.userHandle); }
    return JSON.stringify({ id: credential.id, rawId: toText(credential.rawId), type: credential.type,
      response: response });
  }

  function options(form) {
    var body = new URLSearchParams();
    body.set("csrf_token", form.elements.csrf_token.value);
    return fetch(form.getAttribute("data-options"), { method: "POST", body: body, credentials: "same-origin" })
      .then(function (answer) {
        if (!answer.ok) { throw new Error("options " + answer.status); }
        return answer.json();
      });
  }

  function submit(form, credential) {
    form.elements.credential.value = credentialJSON(credential);
    form.submit();
  }

  // A ceremony that fails in the browser (cancelled, timed out) still posts, with no credential: the server answers
  // with its one message, and the page says so. A registration the device refuses because it already holds one of the
  // account's passkeys (InvalidStateError) says so in the form's `failure` field, where the form has one.
  function fail(form, error) {
    form.elements.credential.value = "";
    if (form.elements.failure) {
      form.elements.failure.value = error && error.name === "InvalidStateError" ? "already-registered" : "";
    }
    form.submit();
  }

  var pending = null;

  function run(form) {
    var kind = form.getAttribute("data-passkey");
    if (pending) { pending.abort(); pending = null; }
    options(form).then(function (json) {
      return kind === "register"
        ? navigator.credentials.create({ publicKey: creationOptions(json) })
        : navigator.credentials.get({ publicKey: requestOptions(json) });
    }).then(function (credential) { submit(form, credential); }, function (error) { fail(form, error); });
  }

  // Autofill (conditional mediation): the email field offers the passkeys; choosing one signs in.
  function conditional(form) {
    if (!PublicKeyCredential.isConditionalMediationAvailable || !window.AbortController) { return; }
    PublicKeyCredential.isConditionalMediationAvailable().then(function (available) {
      if (!available) { return; }
      var controller = new AbortController();
      pending = controller;
      return options(form).then(function (json) {
        return navigator.credentials.get({ publicKey: requestOptions(json), mediation: "conditional",
          signal: controller.signal });
      }).then(function (credential) { if (credential) { submit(form, credential); } });
    }).catch(function () { /* the button still works */ });
  }

  var forms = document.querySelectorAll("form[data-passkey]");
  for (var i = 0; i < forms.length; i++) {
    (function (form) {
      var button = form.querySelector("button[type=submit]");
      if (button) { button.hidden = false; }
      form.addEventListener("submit", function (event) {
        if (form.elements.credential.value) { return; }
        event.preventDefault();
        run(form);
      });
      if (form.getAttribute("data-passkey") === "sign-in") { conditional(form); }
    })(forms[i]);
  }
})();
