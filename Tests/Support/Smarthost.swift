import Foundation

/// aiosmtpd (PyPI) as a smarthost on loopback: STARTTLS with the given certificate (or TLS from the first byte, as on
/// port 465), AUTH required (only over TLS) for `relay`/`secret`, `450 4.2.0` for recipients named `later@`,
/// `550 5.1.1` for `nobody@`. It prints its port, serves until its standard input closes, then prints what it
/// received as JSON.
public final class Smarthost {
    public static let isAvailable: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import aiosmtpd"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    private static let script = #"""
        import asyncio, json, socket, ssl, sys
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult, LoginPassword

        class Handler:
            def __init__(self):
                self.messages = []
            async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
                if address.startswith("later@"):
                    return "450 4.2.0 Mailbox busy, try later"
                if address.startswith("nobody@"):
                    return "550 5.1.1 No such user"
                envelope.rcpt_tos.append(address)
                return "250 2.1.5 OK"
            async def handle_DATA(self, server, session, envelope):
                self.messages.append({"from": envelope.mail_from, "to": envelope.rcpt_tos,
                    "data": envelope.content.decode("utf-8", "replace"),
                    "tls": server.transport.get_extra_info("sslcontext") is not None,
                    "auth": session.authenticated})
                return "250 2.0.0 Queued"

        def authenticate(server, session, envelope, mechanism, data):
            ok = isinstance(data, LoginPassword) and data.login == b"relay" and data.password == b"secret"
            return AuthResult(success=ok, handled=False)  # handled=True would leave the 535 unsent

        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        handler = Handler()
        if len(sys.argv) > 3 and sys.argv[3] == "implicit":
            # Every connection is TLS: aiosmtpd's auth_require_tls knows only STARTTLS, so it is off here.
            controller = Controller(handler, hostname="127.0.0.1", port=port, server_hostname="smarthost.test",
                ssl_context=context, auth_required=True, auth_require_tls=False, authenticator=authenticate)
        else:
            controller = Controller(handler, hostname="127.0.0.1", port=port, server_hostname="smarthost.test",
                tls_context=context, require_starttls=True, auth_required=True, auth_require_tls=True,
                authenticator=authenticate)
        controller.start()
        print("READY", port, flush=True)
        sys.stdin.read()
        controller.stop()
        print(json.dumps(handler.messages), flush=True)
        """#

    public struct Received: Decodable, Equatable {
        public let from: String
        public let to: [String]
        public let data: String
        public let tls: Bool
        public let auth: Bool

        public init(from: String, to: [String], data: String, tls: Bool, auth: Bool) {
            self.from = from
            self.to = to
            self.data = data
            self.tls = tls
            self.auth = auth
        }
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    public let port: Int

    public init(certificateFile: String, keyFile: String, implicitTLS: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", "-c", Smarthost.script, certificateFile, keyFile] + (implicitTLS ? ["implicit"] : [])
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line: [UInt8] = []
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { break }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard words.count == 2, words[0] == "READY", let port = Int(words[1]) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    /// Stops the server and returns what it received.
    public func stop() throws -> [Received] {
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONDecoder().decode([Received].self, from: data)
    }
}
