// swift-tools-version:6.1
// Postern. A self-hosted mail and auth server for AI agents and test suites, on one port. Agent signup (Atomic Mail's
// REST auth), JMAP mail with push, a remote MCP server, Mail.td accounts with Pro (custom domains, webhooks, an SMTP
// sandbox), the Mailpit, Mailosaur, mail.tm and mail.cx APIs, IMAP and POP3 for mail clients, owners who approve apps
// through OAuth 2.1, and remote Argon2 registration (Bad Passwords).
// The targets, how they depend on each other and how a request and a message flow: docs/architecture.md.
import PackageDescription

// The two binaries (`postern` and the test bundle, 160 MB with its debug information) link with the toolchain's lld on
// Linux: gold took twice as long, single-threaded, on every build and every `make test`.
let fastLinker: [LinkerSetting] = [.unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux]))]

let package = Package(
    name: "postern",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "postern", targets: ["postern"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // FilePath for swift-configuration's env-file provider (already a dependency of swift-configuration).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The runtime's services (HTTP, SMTP, webhooks, listeners, purges) under one ServiceGroup with ordered
        // graceful shutdown.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // System C libraries (Debian -dev packages; scripts/bootstrap installs them).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        // Debian's libscrypt ships no pkg-config file: the module map links `scrypt` by name.
        .systemLibrary(name: "CScrypt", providers: [.apt(["libscrypt-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // libcrypto initialised before main without its atexit cleanup, which races threads still hashing at exit.
        .target(name: "COpenSSLInit", dependencies: ["COpenSSL"], linkerSettings: [.linkedLibrary("crypto")]),
        // <sys/epoll.h>, eventfd and accept4, which Glibc's Swift module does not export (headers only).
        .systemLibrary(name: "CEpoll"),

        // The server's one calendar: civil dates, RFC 3339 and RFC 5322 date-times (HTTP's IMF-fixdate is the latter),
        // written and read without Foundation; and the one bounded map of entries that lapse with time
        // (ExpiringEntries). Pure: no dependency.
        .target(name: "Time"),
        // Pure HTTP/1.1: parser, encoder, router. No sockets.
        .target(name: "HTTP1", dependencies: ["Time"]),
        // Pure RFC 6455: the opening handshake's checks, the frame parser and encoder, and the session machine
        // (fragments, UTF-8, pings, the closing handshake). No sockets, no crypto: the caller hashes the key.
        .target(name: "WebSocket", dependencies: ["HTTP1", "ConfigurationReading"]),
        // Pure IMAP4rev1/IMAP4rev2 (RFC 3501, RFC 9051): the command framer and parser (literals, LITERAL+/-), the
        // response encoder and the session machine that asks its driver for sign-in and mailbox data. No sockets, no
        // store: nothing serves it yet (docs/imap.md).
        .target(name: "IMAP", dependencies: ["Time", "BufferBudget", "SASL", "MailDoor", "Base64Coding"]),
        // Pure POP3 (RFC 1939, RFC 2449's CAPA, RFC 5034's AUTH, RFC 2595's STLS): the command parser, the responses
        // and the session machine that asks its driver for sign-in, a message's bytes and the deletions at QUIT.
        .target(name: "POP3", dependencies: ["SASL", "MailDoor"]),
        // What the mail doors' pure session machines share (IMAP's, POP3's): the input they buffer and read through a
        // framer (POP3's lines through its line framer), the timeouts before sign-in, the ASCII bytes their parsers
        // name. Pure: no socket, no store.
        .target(name: "MailDoor"),
        // SASL's messages and the password mechanisms (PLAIN, LOGIN) every mail door decodes the same way: IMAP's
        // AUTHENTICATE, POP3's AUTH, SMTP's AUTH. Pure: it decodes, whoever signs in checks.
        .target(name: "SASL", dependencies: ["Base64Coding"]),
        // The memory every mail session together may hold for what clients send before it is stored (IMAP literals,
        // SMTP's DATA): one process-wide count that refuses a session, never the process.
        .target(name: "BufferBudget"),
        // Settings by their environment names, read strictly through a reader scoped to one part's prefix; the error
        // that names a bad value's key. Nothing else: every target that has settings can read its own.
        .target(name: "ConfigurationReading"),
        // Protocol-neutral serving: epoll event loops on Dispatch queues, listener, timers, connection
        // driver for pure per-protocol state machines, graceful shutdown.
        .target(name: "SocketServer", dependencies: [
            "CEpoll", "ClientAddress",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // HTTP/1.1 on SocketServer: the connection state machine, responder protocol, server facade.
        .target(name: "HTTPServer", dependencies: [
            "HTTP1", "SocketServer", "Time",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // WebSocket on the socket server: a route's handshake answered with `101` (or refused), the connection then
        // driven by the pure session machine, and the channel the application sends and hears through.
        .target(name: "WebSocketServer", dependencies: ["WebSocket", "HTTPServer", "SocketServer", "HTTP1", "AuthCrypto"]),
        // Server-side TLS over memory BIOs (libssl), driven by an event loop's bytes; self-signed pairs (libcrypto).
        .target(name: "ServerTLS", dependencies: ["COpenSSL", "AuthCrypto", "SocketServer"]),
        // SMTP ingest on SocketServer: the session state machine (RFC 5321 subset, STARTTLS, AUTH), the TLS transport
        // under it, the mail-sink protocol, server facade.
        .target(name: "SMTPServer", dependencies: [
            "Base64Coding", "SocketServer", "ServerTLS", "ClientAddress", "Time", "BufferBudget", "SASL",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Bounded thread pool for blocking work away from the socket queues: CPU-heavy hashing (scrypt, Argon2,
        // RSA) and, in its own instance, Fetch's network I/O.
        .target(name: "ComputePool"),
        // Crypto primitives over OpenSSL, libscrypt and libargon2.
        .target(name: "AuthCrypto", dependencies: ["Base64Coding", "COpenSSL", "COpenSSLInit", "CScrypt", "CArgon2"]),
        // Base64 (padded, strict or a mail reader's lenient) and Base64URL over one codec: every target's one
        // encoder and decoder (issue 67). Pure: no dependency.
        .target(name: "Base64Coding"),
        // JSONValue: an order-keeping JSON value with a strict, bounded parser and a serializer (JOSE, JMAP).
        .target(name: "JSON"),
        // Strict definite-length CBOR (RFC 8949) in canonical form, bounded: the decoder under WebAuthn's attestation
        // objects and COSE keys. Pure: no dependency.
        .target(name: "CBOR"),
        // The WebAuthn Level 3 relying party (issue 56): COSE keys to OpenSSL keys, attestation objects, authenticator
        // data and client data checked, registrations and assertions verified, the signature counter's rule; and its
        // configuration (the RP ID and origins). Pure logic: storing challenges and credentials is the caller's.
        .target(name: "WebAuthn", dependencies: ["CBOR", "AuthCrypto", "JSON", "ConfigurationReading"]),
        // The passkeys of owners and Mail.td Pro users and the challenges of ceremonies in progress, in the database
        // (issue 56): one model under both families of pages, knowing neither.
        .target(name: "Passkeys", dependencies: ["Storage", "WebAuthn", "AuthCrypto", "JSON"]),
        // Compact JWS (HS256/RS256), key sets by kid, JWKS.
        .target(name: "JWT", dependencies: ["JSON", "AuthCrypto"]),
        // Signing keys: in the data directory, or sealed in the shared database; generated, rotated, retired.
        .target(name: "SigningKeys", dependencies: ["JWT", "JSON", "AuthCrypto", "Storage"]),
        // SQLite wrapper, migrator, challenge ledger.
        .target(name: "Storage", dependencies: [
            "CSQLite",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The audit trail (issue "The operator's day two"): events of what owners, Pro accounts, apps and the operator
        // did, the log port and its SQL table; recording never fails the action it follows.
        .target(name: "Audit", dependencies: ["Storage", "JSON", .product(name: "Logging", package: "swift-log")]),
        // PostgreSQL through libpq behind Storage's SQLConnection: placeholders, values, errors, reconnection.
        .target(name: "PostgresClient", dependencies: [
            "CLibPQ", "Storage", .product(name: "Logging", package: "swift-log"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
        ]),
        // The files a running server needs (migrations/{sqlite,postgres}/*.sql, openapi.json), compiled in by the EmbedResources
        // plugin so that the binary runs from any directory; a new migration needs no change here.
        .target(
            name: "EmbeddedResources", dependencies: ["Storage"], exclude: ["migrations-sqlite", "migrations-postgres"],
            plugins: ["EmbedResources"]),
        .plugin(name: "EmbedResources", capability: .buildTool(), dependencies: ["EmbedResourcesTool"]),
        .executableTarget(name: "EmbedResourcesTool", path: "Plugins/EmbedResourcesTool"),
        // Client addresses: parsing, trusted proxies / X-Forwarded-For, the rate-limit key (IPv6 per /64).
        .target(name: "ClientAddress"),
        // What every surface shares on a request's path: the request context built once per request,
        // routes that receive it, rate-limit tables on one monotonic clock, the storage-failure table.
        // Pure MIME parsing: raw RFC 5322 bytes in, the fields, bodies and attachments the mail APIs read out.
        .target(name: "MIME", dependencies: ["Time", "Base64Coding"]),
        // The one-time codes and the links of a parsed message (issue 85): pure, a message in, ranked codes and kinded
        // links out, within documented limits; every door reads its answer, none computes its own.
        .target(name: "MailExtraction", dependencies: ["MIME"]),
        // An email address as every surface compares it (issue 66): the local part lower-cased by ASCII rules only, the
        // domain in IDNA's ASCII form (Punycode), one normalisation in one place. Pure: no dependency.
        .target(name: "EmailAddresses"),
        // Who is local and who a request acts as: the directory port each surface implements for its own accounts,
        // the agent inbox rule, the capability token's typed claims, the principal a mail API serves.
        .target(name: "Directory", dependencies: ["JWT", "JSON", "EmailAddresses", "ClientAddress"]),
        // What every durable queue shares (the webhook events', the outbound recipients'): the lease its rows are held
        // by (a token, SKIP LOCKED on PostgreSQL, work recorded under the token, the next due time), the one wake-up
        // primitive, and the one runner loop of rounds and waits its dispatcher runs.
        .target(name: "LeasedQueue", dependencies: ["Storage", .product(name: "Logging", package: "swift-log")]),
        // The local mail store: every local address's messages (raw and parsed) and what MailExtraction found in each.
        .target(name: "MailStore", dependencies: ["Storage", "MIME", "LeasedQueue", "EmailAddresses", "MailExtraction", "JSON"]),
        // Delivery into the mail store, whatever the transport: the envelope, the recipients' verdicts, one parse and
        // a copy per local recipient.
        // IMAP served (issue 70): the connection machine over IMAP's pure session on SocketServer's loops, the
        // mailbox driver over the one mail store (UIDs, keywords as flags, the change stream for IDLE), and the
        // sign-in port the composition root fills with each holder's credential check.
        .target(name: "IMAPServer", dependencies: [
            "IMAP", "MailDoorServer", "SocketServer", "ServerTLS", "MailStore", "MIME", "Time", "ClientAddress",
            "BufferBudget", "SASL",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // POP3 served (issue 70; its own target since issue 82): the connection over POP3's pure session on the mail
        // doors' connection machine, and the driver that lists the holder's INBOX, reads a message's bytes and commits
        // QUIT's deletions through the one mail store, signed in through the mail doors' sign-in port.
        .target(name: "POP3Server", dependencies: [
            "POP3", "MailDoorServer", "SocketServer", "ServerTLS", "MailStore", "ClientAddress", "SASL",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // What the mail doors serve alike (IMAP's and POP3's): the connection machine over SocketServer's loops and
        // ServerTLS's transport, the listener shell (MailServer) and its settings, the sign-in port the composition
        // root fills (IMAPSignIn: the holder, its standing, why a session ends) and the OAuth SASL step. No protocol
        // of its own and no store: each serving target brings its session and its driver.
        .target(name: "MailDoorServer", dependencies: [
            "SocketServer", "ServerTLS", "ClientAddress", "SASL", "MailDoor",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "MailDelivery", dependencies: ["Directory", "EmailAddresses", "MIME", "MailStore", "SMTPOutcomes", "Storage"]),
        .target(name: "ServerKit", dependencies: [
            "HTTP1", "ClientAddress", "Storage", "JSON", "ConfigurationReading", "WebSocket", "Time",
        ]),
        // JMAP (RFC 8620, 8621, 9404) over the mail store, serving the principal a Directory authenticator finds.
        .target(name: "JMAP", dependencies: [
            "EmailAddresses",
            "Directory", "MailStore", "MailDelivery", "MailSubmission", "SMTPOutcomes", "JSON", "MIME", "HTTP1",
            "ServerKit", "ClientAddress", "Time", "WebSocket", "Base64Coding", "MailExtraction",
        ]),
        // MCP over Streamable HTTP at /mcp: JSON-RPC framing, sessions, and mail tools composed over JMAP.
        .target(name: "MCPServer", dependencies: [
            "EmailAddresses",
            "JMAP", "Directory", "MailStore", "MailSubmission", "JSON", "HTTP1", "ServerKit", "AuthCrypto",
            "ClientAddress", "MIME", "SMTPOutcomes", "Base64Coding", "MailExtraction",
        ]),
        // The agent proof-of-work rules of CONTRACT.md 1.2 (scrypt, difficulty, nonce), shared by the agent surface
        // that checks them and the agent client that solves them.
        .target(name: "AgentPoW", dependencies: ["AuthCrypto"]),
        // A second factor's arithmetic (issue 88 item 3): HOTP and TOTP (RFC 4226, RFC 6238) with the one-step window
        // and the replay rule, base32 (RFC 4648), the otpauth URI, recovery codes. Pure but for HMAC-SHA1 and random
        // bytes; the stores and pages that use it are the families' (Owners).
        .target(name: "TOTP", dependencies: ["AuthCrypto"]),
        // QR Code symbols (ISO/IEC 18004; issue 88 item 3: the otpauth URI on the setup page): byte mode, level M,
        // versions 1 to 10, drawn as SVG. Pure, no dependency.
        .target(name: "QRCode"),
        // A second factor written once and mounted for every family that signs in (issue 88 item 3; owners and Pro
        // users): the store of TOTP secrets and recovery-code digests over a family's tables (the only target with
        // SQL of them), the sealing port, the pending second step's cookie, the two-step page parts, and the two-step
        // pages and the sign-in's second step over a family's SecondFactorFamily port (a SignInFamily).
        .target(name: "SecondFactors", dependencies: [
            "TOTP", "QRCode", "Storage", "AuthCrypto", "ServerKit", "BrowserPages", "HTTP1", "SignInMethods", "Audit",
            "ClientAddress",
        ]),
        // Surface 1: Atomic Mail compatible agent signup.
        // Custom domains, one model for every surface: owners' and Mail.td Pro users' claims in one table,
        // the ownership rules once; surfaces answer for their own mailboxes through a port.
        .target(name: "CustomDomains", dependencies: ["Storage", "DNS", "AuthCrypto", "JSON", "EmailAddresses"]),
        .target(name: "AgentAuth", dependencies: [
            "EmailAddresses",
            "HTTP1", "ServerKit", "ClientAddress", "JWT", "AuthCrypto", "Storage", "ComputePool", "AgentPoW", "Directory",
            "CustomDomains", "MailStore",
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // The agent side of surface 1 (`postern agent signup|login|revoke`): proof-of-work solver and HTTP client.
        .target(name: "AgentClient", dependencies: ["OutboundSocket", "AgentPoW", "AuthCrypto", "Fetch", "HTTP1"]),
        // Stored passwords: Argon2id hashing and verification on the worker pool, with an unknown-user decoy.
        .target(name: "PasswordHashing", dependencies: ["AuthCrypto", "ComputePool"]),
        // The browser pages every signed-in family shares (issue 52): the cookies and CSRF tokens of a family of
        // server-rendered pages (BrowserForms), their one frame style and flash messages (BrowserPage), their one
        // middleware (PageRoutes: the page budget per client, the 429 and 500 pages) and the sign-in backoff
        // (SignInThrottle). It knows no family: the owner pages, consent, the web inbox and the Pro dashboard sit on
        // top of it.
        .target(name: "BrowserPages", dependencies: [
            "HTTP1", "ServerKit", "AuthCrypto", "Storage", "ClientAddress", "Passkeys",
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // Owners: people who sign in with email and password and hold agent inboxes (issue 28): accounts with
        // per-account sign-in backoff, browser sessions, CSRF, the sign-in pages, and the owner pages.
        .target(name: "Owners", dependencies: [
            "EmailAddresses",
            "HTTP1", "ServerKit", "AuthCrypto", "Storage", "ComputePool", "PasswordHashing", "Directory", "DNS",
            "ClientAddress", "Audit", "OAuthGrants", "CustomDomains", "Time", "BrowserPages", "Passkeys", "WebAuthn",
            "SignInProviders", "SignInMethods", "EmbeddedResources", "AppPasswords", "TOTP", "QRCode", "SecondFactors",
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // Sign-in methods, one owner for every family (issue 67): the passkey ceremonies' routes, the provider flow's
        // start, completion, password question and unlink, the last-way rule and the password's removal, written once
        // over the SignInFamily port that owners (Owners) and Pro users (WebInbox) fill.
        .target(name: "SignInMethods", dependencies: [
            "HTTP1", "ServerKit", "BrowserPages", "Passkeys", "SignInProviders", "Audit", "ClientAddress", "AuthCrypto",
        ]),
        // Sign-in with identity providers (issue 54): the providers' configuration, OpenID Connect discovery and the
        // id_token's checks over JWT's published keys, the login transactions and the linked identities (the only
        // target with SQL of signin_transactions and signin_identities).
        .target(name: "SignInProviders", dependencies: [
            "EmailAddresses",
            "ConfigurationReading", "Fetch", "JSON", "JWT", "AuthCrypto", "Storage", "HTTP1",
        ]),
        // The OAuth grant model: the only target with SQL of the grant tables (grants, codes, refresh tokens,
        // access-token rows, clients) and the typed access-token claims; the authorization server, the resource side
        // and the owner pages sit on top of it.
        .target(name: "OAuthGrants", dependencies: ["JWT", "JSON", "AuthCrypto", "Directory", "Storage", "Time"]),
        // The resource side of OAuth (issue 28): the owners' RFC 9068 access tokens verified for JMAP, MCP and
        // /api/v1/agents, their grants' liveness cached per instance and invalidated by revocations, the agents list.
        .target(name: "OAuthResource", dependencies: [
            "JWT", "JSON", "AuthCrypto", "Directory", "Storage", "HTTP1", "ServerKit", "OAuthGrants", "Time",
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // The OAuth 2.1 authorization server for apps (issue 28): metadata, registration, authorize and consent,
        // token (codes with PKCE, rotating refresh tokens), revocation; EdDSA access tokens on the worker pool.
        .target(name: "OAuthServer", dependencies: [
            "HTTP1", "ServerKit", "JWT", "JSON", "AuthCrypto", "Storage", "ComputePool", "Directory", "Owners", "Fetch",
            "OAuthGrants", "Audit", "BrowserPages", "SignInMethods",
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // The web inbox (issue 41): server-rendered pages at /inbox where owners, Mail.td accounts, Pro users and
        // one-time links read mail, in the browser pages' frame and forms; the owners' sessions, backoff and error
        // pages.
        .target(name: "WebInbox", dependencies: [
            "EmailAddresses",
            "HTTP1", "ServerKit", "AuthCrypto", "Storage", "Owners", "Directory", "MailStore", "MIME", "ClientAddress",
            "EmbeddedResources", "SMTPOutcomes", "Time", "BrowserPages", "Audit", "Passkeys", "SignInProviders",
            "SignInMethods", "HTMLSanitizing", "AppPasswords", "SecondFactors", "TOTP",
        ]),
        // A message's HTML part made harmless to serve (a pure tokenizer that writes only what it understood): the web
        // inbox's frame and Mailpit's /view/{ID}.html.
        .target(name: "HTMLSanitizing"),
        // Mailpit's API v1 over the one mail store (issue 71), for the operator and Pro users' sandboxes.
        .target(name: "MailpitAPI", dependencies: [
            "HTTP1", "ServerKit", "JSON", "MIME", "MailStore", "AuthCrypto", "Base64Coding", "Time", "HTMLSanitizing",
            "ConfigurationReading", "Fetch", "WebSocket",
        ]),
        // Mailosaur's API over the one mail store (issue 85 item 2): servers as the store's addresses, the codes and
        // links found at delivery, the wait on the change stream; for the operator and Pro users' sandboxes.
        .target(name: "MailosaurAPI", dependencies: [
            "HTTP1", "ServerKit", "JSON", "MIME", "MailStore", "MailExtraction", "AuthCrypto", "Base64Coding", "Time",
            "ConfigurationReading", "EmailAddresses",
        ]),
        // Surface 2's model (issue 82): Mail.td's accounts, tokens, Pro users, their domains and sign-in, without HTTP
        // (MailboxAccountService); the doors below and beside it serve them.
        .target(name: "MailboxAccounts", dependencies: [
            "EmailAddresses",
            "ServerKit", "JWT", "JSON", "AuthCrypto", "Storage", "ComputePool", "MailStore", "MIME", "Directory", "DNS", "PasswordHashing",
            "Fetch", "Audit", "CustomDomains", "Time",
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // What every route of Mail.td's shape shares (issue 82): the call, the bearer rules, the rate limits, the
        // answers and the message JSON; no route of its own. Mail.td's REST API, the operator's API, the webhooks, the
        // sandbox, the Pro dashboard and mail.cx's message JSON sit on it.
        .target(name: "MailboxRoutes", dependencies: [
            "MailboxAccounts", "EmailAddresses", "HTTP1", "ServerKit", "JWT", "JSON", "AuthCrypto", "Storage",
            "ComputePool", "MailStore", "MIME", "DNS", "PasswordHashing", "Audit", "CustomDomains", "Time",
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // How mail clients set themselves up (issue 87): Thunderbird's autoconfig and Outlook's autodiscover, a door of
        // XML documents over the servers the composition root binds.
        .target(name: "MailClientSetup", dependencies: ["HTTP1", "ServerKit", "Directory", "MIME"]),
        // Mail.td's REST API (CONTRACT.md 2.2): accounts, tokens, Pro users and their API tokens, domains, billing and
        // messages, a door over the accounts' model (issue 82).
        .target(name: "MailTD", dependencies: [
            "MailboxRoutes", "MailboxAccounts", "HTTP1", "ServerKit", "JSON", "JWT", "MIME", "MailStore", "CustomDomains",
            "Audit", "DNS", "Storage",
        ]),
        // The operator's API (/api/operator/messages and its wait, reset and events): a door over the one mail store,
        // behind the operator's token (issue 82).
        .target(name: "OperatorAPI", dependencies: [
            "MailboxRoutes", "MailboxAccounts", "HTTP1", "ServerKit", "JSON", "MIME", "MailStore", "AuthCrypto", "Time",
            "WebSocket", "MailExtraction",
        ]),
        // The one owner of mail credentials (issue 82): which credential (an agent key, an owner's access token, a
        // `tm_pro_` token, a Mail.td password) opens which mailbox, with the backoff's keys, the mail doors' bucket and
        // the audit; IMAP, POP3 and the web inbox's Mail.td sign-in are given it through their ports.
        .target(name: "MailSignIn", dependencies: [
            "MailboxAccounts", "Directory", "BrowserPages", "Audit", "ClientAddress", "EmailAddresses", "ServerKit",
            "AuthCrypto", "Base64Coding", "AppPasswords",
        ]),
        // App passwords (issue 87 item 2): the secret's form and digest and the only SQL of app_passwords; the mail
        // sign-in checks them, the owner pages, the Pro dashboard and the operator's commands make and revoke them.
        .target(name: "AppPasswords", dependencies: ["AuthCrypto", "Storage"]),
        // Mail.td Pro webhooks: the durable queue (fed by the mail store's delivery transaction), the dispatcher that
        // delivers it through the shared fetcher, the signature and payload, and the five /api/user/webhooks routes.
        .target(name: "Webhooks", dependencies: [
            "MailboxAccounts", "MailboxRoutes", "MailStore", "Storage", "Fetch", "AuthCrypto", "JSON", "HTTP1", "ServerKit", "LeasedQueue", "Time",
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // mail.tm's API and its Mercure hub (issue 72): a second door onto Mail.td's accounts and the one mail store.
        .target(name: "MailTM", dependencies: [
            "MailboxAccounts", "MailboxRoutes", "MailStore", "MIME", "JSON", "HTTP1", "ServerKit", "ClientAddress", "AuthCrypto", "Time",
            "ConfigurationReading", "EmailAddresses",
        ]),
        // mail.cx's REST API (issue 72): implicit mailboxes on the surface's domains over the one mail store; and its
        // live messages at /api/ws over Mail.td's accounts (issue 82).
        .target(name: "MailCX", dependencies: [
            "MailboxAccounts", "MailboxRoutes", "MailStore", "MIME", "JSON", "HTTP1", "ServerKit", "Time", "ConfigurationReading",
            "EmailAddresses", "Directory", "ClientAddress", "WebSocket",
        ]),
        // Mail.td's SMTP sandbox: the capture store, its /api/user/sandbox routes, and the SMTP sink that captures.
        .target(name: "MailSandbox", dependencies: [
            "MailboxAccounts", "MailboxRoutes", "MailStore", "MIME", "Storage", "JSON", "HTTP1", "ServerKit", "SMTPServer", "MailAuth",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The Mail.td side of the web inbox: its sign-in port over the mailbox surface (sign-in, what each session rests
        // on, what it may read) and the sandbox's verdicts, and the Pro dashboard at /inbox/dashboard, a controller over
        // MailboxAccounts, Webhooks and MailSandbox in the web inbox's frame and session.
        .target(name: "MailboxWebInbox", dependencies: [
            "EmailAddresses",
            "WebInbox", "MailboxAccounts", "MailboxRoutes", "Webhooks", "MailSandbox", "Directory", "MailDelivery", "JSON", "HTTP1",
            "ServerKit", "BrowserPages", "SignInProviders", "MailSignIn", "ClientAddress", "AppPasswords", "Audit",
            "SecondFactors", "Storage",
        ]),
        // The SMTP client for outbound delivery: the reply parser and the session machine (pure), the driver that runs
        // a session over TCP and TLS under the outbound address policy, and MTA-STS (RFC 8461) policies.
        // What an SMTP delivery attempt came to, as types every layer carries (SMTPReply, EnhancedStatusCode,
        // SMTPClientFailure, DeliveryFailure, DeliveryStatus): pure, no dependency.
        .target(name: "SMTPOutcomes"),
        .target(name: "SMTPClient", dependencies: ["SMTPOutcomes", "OutboundSocket", "ComputePool", "AuthCrypto"]),
        // Small, safe outbound HTTP/1.1 client (URL vetting, redirects, response parsing) for remote hashes,
        // webhooks, MTA-STS policies and client metadata documents, over OutboundSocket.
        .target(name: "Fetch", dependencies: ["OutboundSocket", "ComputePool", "ConfigurationReading"]),
        // The outbound socket layer under Fetch and SMTPClient: the address policy (CONTRACT 3.3), name lookup
        // bounded by a deadline, TCP and the TLS client (OpenSSL), with one closed error.
        .target(name: "OutboundSocket", dependencies: ["COpenSSL"]),
        // A stub DNS resolver (UDP, TCP on truncation, a deadline): TXT and MX lookups for domain verification.
        // It also resolves the outbound sockets' host names (OutboundSocket's HostResolver): one resolver for every lookup.
        .target(name: "DNS", dependencies: ["ComputePool", "AuthCrypto", "OutboundSocket", "EmailAddresses"]),
        // Sender authentication of received mail: SPF (RFC 7208 subset), DKIM (RFC 6376, RSA and Ed25519) and DMARC
        // (RFC 7489), over a DNS port. The SMTP sandbox shows the verdicts.
        .target(name: "MailAuth", dependencies: ["DNS", "AuthCrypto", "Base64Coding", "ClientAddress", "MIME"]),
        // Outbound DKIM: each domain's RSA and Ed25519 keys in dkim_keys, sealed on
        // PostgreSQL as the signing keys are, made on first need, rotated, and their DNS records.
        .target(name: "DKIMKeys", dependencies: [
            "MailAuth", "AuthCrypto", "Storage", "SigningKeys", "CustomDomains", "ComputePool",
        ]),
        // Outbound delivery's transports: the configuration of the modes, MX resolution (RFC 5321 §5.1,
        // RFC 7505), MTA-STS (RFC 8461), the message as it leaves (Received, Bcc removed, DKIM-signed), the direct and
        // relay transports behind MailDelivery's OutboundTransport, and delivery status notifications (RFC 3464).
        .target(name: "MailTransfer", dependencies: [
            "EmailAddresses",
            "OutboundSocket", "MailDelivery", "MIME", "SMTPClient", "SMTPOutcomes", "DNS", "MailAuth", "DKIMKeys", "Fetch", "ComputePool",
            "AuthCrypto",
            "ConfigurationReading", "Time",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The outbound queue: EmailSubmission records, each recipient's disposition and the message in one
        // transaction, leased to instances per message and destination domain, retried, bounced and suppressed; the
        // dispatcher that runs it over any OutboundTransport.
        .target(name: "OutboundQueue", dependencies: [
            "MailDelivery", "Directory", "EmailAddresses", "SMTPOutcomes", "Storage", "ConfigurationReading", "Time",
            "LeasedQueue",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The one owner of a submission (issue 82): resolve the sender and recipients, admit those on other domains
        // (the sender rule, the send and size limits, the quota), deliver, keep, record, with a typed refusal each
        // door words at its edge. Beside the queue, over MailDelivery's ledger port; it knows no door.
        .target(name: "MailSubmission", dependencies: [
            "MailDelivery", "Directory", "MailStore", "MIME", "EmailAddresses", "SMTPOutcomes", "Time",
        ]),
        // The submission listener's door (RFC 6409, issue 87): the SMTP server's sink that signs clients in through the
        // SubmissionSignIn port (filled from MailSignIn by the composition root) and makes each message a submission of
        // the signed-in mailbox through the one Submitter, its refusals worded as SMTP replies here.
        .target(name: "SMTPSubmission", dependencies: [
            "SMTPServer", "SASL", "MailSubmission", "MailDelivery", "MailStore", "MIME", "EmailAddresses",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Surface 3: "Bad Passwords" compatible remote Argon2 registration.
        .target(name: "RemoteHashAuth", dependencies: [
            "EmailAddresses",
            "OutboundSocket", "HTTP1", "ServerKit", "JWT", "JSON", "AuthCrypto", "Storage", "ComputePool", "Fetch",
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // The process's Prometheus registry (issue 67): the server-level gauges, the request series written on every
        // request, every family's help text and swift-metrics' factory over it. It knows no surface and no listener.
        .target(name: "ServerMetrics", dependencies: [
            "HTTP1", "OutboundQueue",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        // Composition root: configuration, routes, buildServer(configuration:logger:).
        .target(name: "PosternApp", dependencies: [
            "EmailAddresses",
            "OutboundSocket", "HTTP1", "SocketServer", "HTTPServer", "ComputePool", "JWT", "JSON", "SigningKeys", "Storage", "PostgresClient", "EmbeddedResources",
            "AgentAuth", "DKIMKeys", "SMTPOutcomes", "BrowserPages", "WebAuthn", "Passkeys", "BufferBudget",
            "MailboxAccounts", "MailboxRoutes", "MailTD", "OperatorAPI", "MailSignIn", "Webhooks", "MailSandbox", "MailTM", "MailCX", "Fetch", "RemoteHashAuth", "ClientAddress", "ServerKit", "MailStore", "MailDelivery",
            "SMTPServer", "ServerTLS", "MailAuth", "JMAP", "Directory", "DNS", "MCPServer", "Owners", "PasswordHashing",
            "OAuthServer", "OAuthResource", "OAuthGrants", "Audit", "AuthCrypto", "MIME", "CustomDomains",
            "ConfigurationReading", "MailTransfer", "MailSubmission", "OutboundQueue", "WebInbox", "MailboxWebInbox", "Time",
            "SignInProviders", "WebSocket", "WebSocketServer", "IMAP", "IMAPServer", "POP3Server", "MailDoorServer",
            "MailpitAPI", "MailosaurAPI", "ServerMetrics", "MailClientSetup", "SMTPSubmission", "AppPasswords",
            "SecondFactors",
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The operator's commands (`postern migrate`, keys, backup and restore, audit, DKIM, mail, outbox, owners,
        // passkeys, sign-in, web inbox) beside serving: they open the configured storage and act on it once.
        .target(name: "PosternOperations", dependencies: [
            "PosternApp", "AgentAuth", "Audit", "AuthCrypto", "ComputePool", "DKIMKeys", "DNS", "Directory",
            "EmailAddresses", "EmbeddedResources", "JMAP", "JSON", "JWT", "MIME", "MailDelivery", "MailStore",
            "MailboxAccounts", "MailSubmission", "OAuthGrants", "OutboundQueue", "Owners", "Passkeys",
            "PasswordHashing", "SMTPOutcomes", "ServerKit",
            "SignInProviders", "SigningKeys", "Storage", "Time", "WebInbox", "AppPasswords", "SecondFactors",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(
            name: "postern",
            dependencies: [
                "PosternApp", "PosternOperations", "AgentAuth", "AgentClient", "Owners", "Audit", "OutboundQueue",
                "HTTPServer", "AppPasswords",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: fastLinker),

        // What tests share (not shipped): a loopback HTTP origin, the settable clock, the test client's response and
        // JMAP calls, an owner's inboxes with access tokens (OAuth's resource side without the authorization server).
        .target(
            name: "PosternTestSupport",
            dependencies: [
                "ServerKit", "HTTP1", "ClientAddress", "Directory", "Storage", "PostgresClient", "EmbeddedResources",
                "COpenSSL", "AgentAuth", "AuthCrypto", "JWT", "OAuthGrants", "OAuthResource", "ServerTLS",
                "SMTPOutcomes", "WebAuthn", "WebSocket", "OutboundSocket", "SignInProviders", "Fetch", "CustomDomains",
                "JMAP", "MailStore", "OutboundQueue", "DNS", "SocketServer", "MailDoorServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Support",
            linkerSettings: fastLinker),
        .testTarget(name: "TimeTests", dependencies: ["Time"]),
        .testTarget(name: "SASLTests", dependencies: ["SASL", "Base64Coding"]),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1"]),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket", "HTTP1", "ConfigurationReading", "AuthCrypto"]),
        .testTarget(name: "IMAPTests", dependencies: ["IMAP", "BufferBudget", "SASL", "MailDoor"]),
        .testTarget(name: "POP3Tests", dependencies: ["POP3", "SASL", "MailDoor"]),
        .testTarget(name: "MailDoorTests", dependencies: ["MailDoor"]),
        .testTarget(name: "BufferBudgetTests", dependencies: ["BufferBudget"]),
        .testTarget(name: "IMAPServerTests", dependencies: [
            "IMAPServer", "IMAP", "MailDoorServer", "MailStore", "Storage", "PosternTestSupport", "ServerTLS",
            "SocketServer", "ClientAddress",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "POP3ServerTests", dependencies: [
            "POP3Server", "POP3", "MailDoorServer", "MailStore", "PosternTestSupport", "SocketServer", "ClientAddress",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "WebSocketServerTests", dependencies: [
            "WebSocketServer", "WebSocket", "HTTPServer", "HTTP1", "SocketServer", "PosternTestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ConfigurationReadingTests", dependencies: ["ConfigurationReading"]),
        .testTarget(name: "SocketServerTests", dependencies: [
            "SocketServer", "PosternTestSupport", "ClientAddress", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ServerMetricsTests", dependencies: ["ServerMetrics"]),
        .testTarget(name: "HTTPServerTests", dependencies: [
            "HTTPServer", "HTTP1", "SocketServer", "PosternTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "SMTPServerTests", dependencies: [
            "SMTPServer", "ServerTLS", "SocketServer", "HTTPServer", "HTTP1", "PosternTestSupport", "ClientAddress",
            "BufferBudget", "SASL", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ServerTLSTests", dependencies: ["ServerTLS", "PosternTestSupport"]),
        .testTarget(name: "MailDeliveryTests", dependencies: [
            "MailDelivery", "Directory", "MailStore", "PosternTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "SMTPSubmissionTests", dependencies: [
            "SMTPSubmission", "SMTPServer", "SASL", "MailSubmission", "MailDelivery", "Directory", "MailStore", "MIME",
            "Base64Coding",
            "OutboundQueue", "SMTPOutcomes", "Storage", "PosternTestSupport", "SocketServer", "ServerTLS",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "MailSubmissionTests", dependencies: [
            "MailSubmission", "MailDelivery", "Directory", "MailStore", "MIME", "OutboundQueue", "SMTPOutcomes", "Storage",
            "PosternTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ComputePoolTests", dependencies: ["ComputePool"]),
        .testTarget(name: "LeasedQueueTests", dependencies: [
            "LeasedQueue", "Storage", "PosternTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "AuthCryptoTests", dependencies: ["AuthCrypto"]),
        .testTarget(name: "Base64CodingTests", dependencies: ["Base64Coding"]),
        .testTarget(name: "SigningKeysTests", dependencies: ["SigningKeys", "JWT", "JSON", "AuthCrypto", "Storage", "PosternTestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(name: "WebAuthnTests", dependencies: [
            "WebAuthn", "CBOR", "AuthCrypto", "ConfigurationReading", "PosternTestSupport",
        ]),
        .testTarget(name: "PasskeysTests", dependencies: [
            "Passkeys", "WebAuthn", "Storage", "AuthCrypto", "PosternTestSupport",
        ]),
        .testTarget(name: "JWTTests", dependencies: ["JWT", "JSON", "AuthCrypto"]),
        .testTarget(name: "MIMETests", dependencies: ["MIME"]),
        .testTarget(
            name: "MailExtractionTests", dependencies: ["MailExtraction", "MIME"], exclude: ["corpus"]),
        .testTarget(name: "EmailAddressesTests", dependencies: ["EmailAddresses", "PosternTestSupport"]),
        .testTarget(name: "DirectoryTests", dependencies: ["Directory", "JWT", "AuthCrypto"]),
        .testTarget(name: "CustomDomainsTests", dependencies: [
            "CustomDomains", "DNS", "Storage", "EmbeddedResources", "PosternTestSupport", "DKIMKeys", "ComputePool",
        ]),
        .testTarget(name: "JMAPTests", dependencies: [
            "JMAP", "OutboundQueue", "ClientAddress", "Directory", "MIME", "MailDelivery", "SMTPOutcomes", "MailStore", "JSON", "HTTP1", "ServerKit", "Storage", "PosternTestSupport", "WebSocket",
            // The search across doors (SearchAcrossDoorsTests) asks IMAP and Mailpit the questions it asks JMAP.
            "IMAP", "IMAPServer", "MailDoorServer", "MailpitAPI",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "MCPServerTests", dependencies: [
            "MCPServer", "JMAP", "Directory", "MailDelivery", "MailStore", "JSON", "HTTP1", "ServerKit", "Storage",
            "AuthCrypto", "PosternTestSupport", "SMTPOutcomes", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "HTMLSanitizingTests", dependencies: ["HTMLSanitizing"]),
        .testTarget(name: "MailosaurAPITests", dependencies: [
            "MailosaurAPI", "MailStore", "MailExtraction", "MIME", "Storage", "ServerKit", "HTTP1", "JSON",
            "PosternTestSupport", "Base64Coding", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "MailpitAPITests", dependencies: [
            "MailpitAPI", "MailStore", "MIME", "Storage", "ServerKit", "HTTP1", "JSON", "PosternTestSupport",
            "PostgresClient", "EmbeddedResources", "Base64Coding", "Fetch", "OutboundSocket",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "MailStoreTests", dependencies: [
            "MailStore", "MIME", "Storage", "EmbeddedResources", "PosternTestSupport", "PostgresClient", "MailExtraction",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "StorageTests", dependencies: [
            "Storage", "EmbeddedResources", "PostgresClient", "PosternTestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "EmbeddedResourcesTests", dependencies: ["EmbeddedResources", "Storage"]),
        .testTarget(name: "PostgresClientTests", dependencies: [
            "PostgresClient", "Storage", "EmbeddedResources", "PosternTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ClientAddressTests", dependencies: ["ClientAddress"]),
        .testTarget(name: "ServerKitTests", dependencies: [
            "ServerKit", "HTTP1", "ClientAddress", "JSON", "PosternTestSupport",
        ]),
        .testTarget(name: "AgentAuthTests", dependencies: [
            "AgentAuth", "AgentClient", "ServerKit", "HTTP1", "JWT", "JSON", "AuthCrypto", "Storage", "Directory",
            "EmbeddedResources", "ComputePool", "CustomDomains",
            "PosternTestSupport",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
        ]),
        .testTarget(name: "AgentPoWTests", dependencies: ["AgentPoW", "AuthCrypto"]),
        .testTarget(name: "TOTPTests", dependencies: ["TOTP"]),
        .testTarget(name: "SecondFactorsTests", dependencies: [
            "SecondFactors", "TOTP", "Storage", "PosternTestSupport", "EmbeddedResources", "ServerKit",
        ]),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode"]),
        .testTarget(name: "AgentClientTests", dependencies: ["AgentClient", "AgentPoW", "AgentAuth", "AuthCrypto"]),
        .testTarget(name: "MailboxAccountsTests", dependencies: [
            "MailboxAccounts", "MailboxRoutes", "MailTD", "OperatorAPI", "ServerKit", "ClientAddress", "HTTP1", "JWT", "JSON", "AuthCrypto", "Storage", "EmbeddedResources",
            "ComputePool", "MailStore", "MIME", "Directory", "PasswordHashing", "Fetch", "Audit", "Webhooks",
            "MailSandbox", "MailDelivery", "CustomDomains", "DNS", "PosternTestSupport", "DKIMKeys", "Time", "WebSocket", "MailCX",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "AppPasswordsTests", dependencies: [
            "AppPasswords", "Storage", "EmbeddedResources", "PosternTestSupport",
        ]),
        .testTarget(name: "MailClientSetupTests", dependencies: ["MailClientSetup", "HTTP1", "ServerKit"]),
        .testTarget(name: "MailCXTests", dependencies: ["MailCX", "MailStore", "MIME", "JSON", "Directory"]),
        .testTarget(name: "MailTMTests", dependencies: ["MailTM", "MailboxAccounts", "MailStore", "MIME", "JSON", "HTTP1"]),
        .testTarget(name: "WebhooksTests", dependencies: [
            "Webhooks", "MailStore", "MIME", "Storage", "ServerKit", "PosternTestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "PasswordHashingTests", dependencies: ["PasswordHashing", "AuthCrypto", "ComputePool"]),
        .testTarget(name: "OwnersTests", dependencies: [
            "Owners", "PasswordHashing", "ServerKit", "HTTP1", "AuthCrypto", "Storage", "ComputePool", "Directory",
            "DNS", "AgentAuth", "EmbeddedResources", "PosternTestSupport", "MailStore", "MIME", "Audit", "ClientAddress",
            "OAuthGrants", "CustomDomains", "DKIMKeys", "BrowserPages", "Passkeys", "WebAuthn", "JSON",
            "SignInProviders", "AppPasswords", "SignInMethods", "TOTP", "SecondFactors",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "WebInboxTests", dependencies: [
            "WebInbox", "Owners", "PasswordHashing", "ServerKit", "HTTP1", "AuthCrypto", "Storage", "ComputePool",
            "Directory", "AgentAuth", "EmbeddedResources", "PosternTestSupport", "MailStore", "MIME", "MailboxAccounts",
            "MailboxRoutes", "MailTD", "OperatorAPI",
            "JWT", "MailSandbox", "JMAP", "JSON", "MailDelivery", "MailSubmission", "OutboundQueue", "PosternApp",
            "ClientAddress",
            "Webhooks", "DKIMKeys", "SMTPOutcomes", "MailboxWebInbox", "Audit", "Passkeys", "WebAuthn",
            "SignInProviders", "SignInMethods", "Fetch", "BrowserPages", "CustomDomains", "DNS", "MailSignIn",
            "AppPasswords", "SecondFactors", "TOTP", "ConfigurationReading",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "OAuthResourceTests", dependencies: [
            "OAuthResource", "Directory", "JWT", "JSON", "AuthCrypto", "Storage", "PostgresClient", "HTTP1", "ServerKit",
            "AgentAuth", "EmbeddedResources", "PosternTestSupport", "OAuthGrants",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
        ]),
        .testTarget(name: "OAuthGrantsTests", dependencies: [
            "OAuthGrants", "Directory", "JWT", "JSON", "AuthCrypto", "Storage", "EmbeddedResources", "PosternTestSupport",
        ]),
        .testTarget(name: "OAuthServerTests", dependencies: [
            "OutboundSocket", "OAuthServer", "Owners", "PasswordHashing", "ServerKit", "HTTP1", "JWT", "JSON", "AuthCrypto", "Storage",
            "ComputePool", "Directory", "AgentAuth", "EmbeddedResources", "PosternTestSupport", "Fetch",
            "OAuthResource", "OAuthGrants", "Audit", "CustomDomains", "DNS", "SecondFactors",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
        ]),
        .testTarget(name: "SMTPClientTests", dependencies: [
            "OutboundSocket", "SMTPClient", "SMTPOutcomes", "SMTPServer", "ServerTLS", "SocketServer", "Fetch", "ComputePool",
            "PosternTestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "MailTransferTests", dependencies: [
            "OutboundSocket", "MailTransfer", "MailDelivery", "SMTPClient", "SMTPOutcomes", "SMTPServer", "ServerTLS", "SocketServer", "DNS", "MailAuth",
            "DKIMKeys", "Fetch", "ComputePool", "AuthCrypto", "MIME", "ConfigurationReading", "Storage",
            "PosternTestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "FetchTests", dependencies: [
            "OutboundSocket", "Fetch", "ConfigurationReading", "DNS", "ComputePool", "PosternTestSupport",
        ]),
        .testTarget(name: "OutboundSocketTests", dependencies: ["OutboundSocket"]),
        .testTarget(name: "DNSTests", dependencies: ["DNS", "ComputePool", "PosternTestSupport"]),
        .testTarget(name: "MailAuthTests", dependencies: ["MailAuth", "DNS", "AuthCrypto"]),
        .testTarget(name: "DKIMKeysTests", dependencies: [
            "DKIMKeys", "MailAuth", "AuthCrypto", "Storage", "PosternTestSupport",
        ]),
        .testTarget(name: "OutboundQueueTests", dependencies: [
            "OutboundQueue", "MailDelivery", "SMTPOutcomes", "Storage", "ServerKit", "PosternTestSupport", "Directory",
            "MailStore", "PostgresClient", "EmbeddedResources", .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "RemoteHashAuthTests", dependencies: [
            "RemoteHashAuth", "ServerKit", "Fetch", "HTTP1", "JWT", "JSON", "AuthCrypto", "Storage", "EmbeddedResources",
            "ComputePool",
            "PosternTestSupport",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        .testTarget(name: "PosternAppTests", dependencies: [
            "PosternApp", "PosternOperations", "WebAuthn", "Passkeys", "AgentAuth", "AgentClient", "MailboxAccounts", "MailTM", "MailCX", "Webhooks", "MailSandbox", "RemoteHashAuth", "HTTP1", "HTTPServer", "SocketServer", "JWT", "JSON",
            "JMAP", "MCPServer", "Directory", "AuthCrypto", "Storage", "EmbeddedResources", "PosternTestSupport",
            "OAuthResource", "OAuthGrants", "Audit", "Owners", "MailDelivery", "MailStore", "SMTPServer", "SigningKeys", "ComputePool",
            "OAuthServer", "ServerKit", "Fetch", "DKIMKeys", "MailTransfer", "OutboundQueue", "WebInbox", "MIME",
            "SignInProviders", "WebSocket", "PasswordHashing", "DNS", "ConfigurationReading", "MailpitAPI", "MailosaurAPI",
            "ServerMetrics", "AppPasswords", "TOTP", "SecondFactors", "ClientAddress", "PostgresClient",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "SignInProvidersTests", dependencies: [
            "SignInProviders", "OutboundSocket", "ConfigurationReading", "JWT", "JSON", "AuthCrypto", "PosternTestSupport", "Storage",
            "Fetch", "HTTP1",
        ]),
    ]
)

// The test targets compile without debug information (a clean `make test` spends most of its build on them). An async
// function's debug metadata is cloned into each of its continuations (one per `await`), so a long test function with
// many awaits pays for it many times: counted by callgrind, frontend jobs of OwnersTests and JMAPTests took 8% and 14%
// fewer instructions without it, 200 awaits in one function 28% (docs/testing.md); line tables alone saved 1-2%.
// A failed #expect still names its file and line (the macro records them); a crash in test code is symbolised by
// function name. Postern's own targets keep SwiftPM's `-g`. The flag goes to the frontend, after the `-g` SwiftPM gives
// the driver (a driver flag in swiftSettings comes before it and loses).
for target in package.targets where target.type == .test {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-gnone"])]
}
