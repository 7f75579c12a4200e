import Foundation
import Glibc
import Synchronization

/// A DNS server for tests: a UDP socket, and a TCP listener on the same loopback port when TCP answers are wanted.
public final class LoopbackDNSServer: @unchecked Sendable {
    let udp: Int32
    let tcp: Int32
    public let port: UInt16
    /// Queries received over UDP.
    public let udpQueries = Count()
    /// Queries answered over TCP.
    public let tcpQueries = Count()

    let stopped = Flag()

    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .relaxed) }
        var isSet: Bool { value.load(ordering: .relaxed) }
    }

    public final class Count: Sendable {
        let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        public var count: Int { value.load(ordering: .relaxed) }
    }

    /// - Parameters:
    ///   - udpReplies: the datagrams to send back for a query's bytes (none: silence).
    ///   - tcpReply: the answer over TCP; nil: no TCP listener (a server that only answers over UDP).
    public init(
        udpReplies: @escaping @Sendable ([UInt8]) -> [[UInt8]], tcpReply: (@Sendable ([UInt8]) -> [UInt8])? = nil
    ) {
        // The kernel picks a free UDP port; the TCP listener needs the same number, which a TCP connection of the
        // test process (a database client's) may hold: then both are given up and another port is tried.
        var sockets: (udp: Int32, tcp: Int32, port: UInt16)?
        for _ in 0..<100 where sockets == nil {
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard let port = Self.bind(udp, port: 0) else {
                close(udp)
                continue
            }
            guard tcpReply != nil else {
                sockets = (udp, -1, port)
                break
            }
            let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            var one: Int32 = 1
            setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if Self.bind(tcp, port: port) != nil, listen(tcp, 4) == 0 {
                sockets = (udp, tcp, port)
            } else {
                close(udp)
                close(tcp)
            }
        }
        guard let sockets else { preconditionFailure("no loopback port could take both UDP and TCP") }
        (udp, tcp, port) = sockets
        let (udp, tcp) = (sockets.udp, sockets.tcp)
        let (queries, udpQueries, stopped) = (tcpQueries, udpQueries, stopped)
        // Each thread closes its own socket once stopped: closing it under a blocked call could hand the number to
        // another socket of the test process (a database connection) before the call returns.
        Thread.detachNewThread {
            defer { close(udp) }
            var buffer = [UInt8](repeating: 0, count: 512)
            var peer = sockaddr_storage()
            var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            while Self.readable(udp, unless: stopped) {
                let count = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(udp, &buffer, buffer.count, 0, $0, &peerLength)
                    }
                }
                guard count > 0 else { return }
                udpQueries.add()
                for reply in udpReplies(Array(buffer[..<count])) {
                    _ = withUnsafePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(udp, reply, reply.count, 0, $0, peerLength)
                        }
                    }
                }
            }
        }
        guard let tcpReply else { return }
        Thread.detachNewThread {
            defer { close(tcp) }
            while Self.readable(tcp, unless: stopped) {
                let client = accept(tcp, nil, nil)
                guard client >= 0 else { return }
                var length = [UInt8](repeating: 0, count: 2)
                guard recv(client, &length, 2, Int32(MSG_WAITALL)) == 2 else { close(client); continue }
                var query = [UInt8](repeating: 0, count: Int(length[0]) << 8 | Int(length[1]))
                _ = recv(client, &query, query.count, Int32(MSG_WAITALL))
                queries.add()
                let reply = tcpReply(query)
                _ = send(client, [UInt8(reply.count >> 8), UInt8(reply.count & 0xFF)] + reply, reply.count + 2, 0)
                close(client)
            }
        }
    }

    /// Binds `fd` to 127.0.0.1:`port` (0: any); the port bound, or nil.
    static func bind(_ fd: Int32, port: UInt16) -> UInt16? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }

    /// `127.0.0.1:port`.
    public var address: String { "127.0.0.1:\(port)" }

    /// Stops answering; the sockets close within a tenth of a second.
    public func stop() { stopped.set() }

    /// Whether `fd` became readable before `stopped` was set (checked every 100 ms).
    static func readable(_ fd: Int32, unless stopped: Flag) -> Bool {
        while !stopped.isSet {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 100) > 0 { return true }
        }
        return false
    }
}

extension LoopbackDNSServer {
    /// A zone a test edits while the server answers from it (``noSuchName`` for what was never set).
    public final class Zone: Sendable {
        let answers = Mutex<[String: ZoneAnswer]>([:])

        public init() {}

        /// From now on, `type` queries for `name` get `answer`.
        public func set(_ name: String, _ type: UInt16, _ answer: ZoneAnswer) {
            answers.withLock { $0["\(name)/\(type)"] = answer }
        }

        /// What the zone says about `name` and `type`: pass it as the server's `zone`.
        public func answer(_ name: String, _ type: UInt16) -> ZoneAnswer {
            answers.withLock { $0["\(name)/\(type)"] } ?? .noSuchName
        }
    }

    /// What a test zone says about one name and type.
    public enum ZoneAnswer: Sendable {
        /// One TXT record a text (split into 255-byte character-strings).
        case txt([String])
        case mx([MXRecord])
        /// A records: IPv4 addresses in dotted form (asked with type 1).
        case addresses([String])
        case noSuchName
        case serverFailure
        /// No answer at all (the resolver times out).
        case silence
    }

    public struct MXRecord: Sendable {
        public let preference: UInt16
        public let exchange: String
        public init(_ preference: UInt16, _ exchange: String) {
            self.preference = preference
            self.exchange = exchange
        }
    }

    /// A server answering over UDP from `zone(name, type)` (type 16 TXT, 15 MX, 1 A), lower-cased names without the
    /// dot.
    public convenience init(zone: @escaping @Sendable (_ name: String, _ type: UInt16) -> ZoneAnswer) {
        self.init(udpReplies: { query in Self.reply(to: query, zone: zone).map { [$0] } ?? [] })
    }

    static func reply(to query: [UInt8], zone: (String, UInt16) -> ZoneAnswer) -> [UInt8]? {
        var position = 12
        var labels: [String] = []
        while position < query.count, query[position] != 0 {
            let count = Int(query[position])
            guard position + 1 + count <= query.count else { return nil }
            labels.append(String(decoding: query[position + 1..<position + 1 + count], as: UTF8.self).lowercased())
            position += 1 + count
        }
        let questionEnd = position + 5
        guard questionEnd <= query.count else { return nil }
        let type = UInt16(query[position + 1]) << 8 | UInt16(query[position + 2])
        var reply = Array(query[..<questionEnd])
        reply[2] = 0x81
        var answers: [[UInt8]] = []
        switch zone(labels.joined(separator: "."), type) {
        case .silence: return nil
        case .noSuchName: reply[3] = 0x83
        case .serverFailure: reply[3] = 0x82
        case .txt(let texts):
            reply[3] = 0x80
            // One record a text; a text past 255 bytes is split into several character-strings, as a DKIM RSA key's
            // record is published (the resolver joins them).
            answers = texts.map { text in
                let bytes = Array(text.utf8)
                return stride(from: 0, to: max(bytes.count, 1), by: 255).flatMap { start in
                    let chunk = bytes[start..<min(start + 255, bytes.count)]
                    return [UInt8(chunk.count)] + chunk
                }
            }
        case .mx(let records):
            reply[3] = 0x80
            answers = records.map { record in
                var data = [UInt8(record.preference >> 8), UInt8(record.preference & 0xFF)]
                for label in record.exchange.split(separator: ".") { data += [UInt8(label.utf8.count)] + label.utf8 }
                return data + [0]
            }
        case .addresses(let addresses):
            reply[3] = 0x80
            answers = addresses.map { address in address.split(separator: ".").compactMap { UInt8($0) } }
        }
        reply[6] = 0
        reply[7] = UInt8(answers.count)
        reply[8...11] = [0, 0, 0, 0]
        for data in answers {
            reply += [0xC0, 12, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1, 0, 0, 0, 60, UInt8(data.count >> 8)]
            reply += [UInt8(data.count & 0xFF)] + data
        }
        return reply
    }
}
