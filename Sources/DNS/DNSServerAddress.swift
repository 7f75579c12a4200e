import Foundation
import Glibc

/// The address of the recursive resolver Postern asks: an IP literal and a port.
public struct DNSServerAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: UInt16

    /// `host:port` or `[v6]:port`, or a bare IP literal (port 53); nil when it is not one of those.
    public init?(_ text: String) {
        var host = Substring(text)
        var port: UInt16 = 53
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let given = UInt16(rest.dropFirst()) else { return nil }
                port = given
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            guard let given = UInt16(host[host.index(after: colon)...]) else { return nil }
            port = given
            host = host[..<colon]
        }
        guard port != 0, Self.family(of: String(host)) != nil else { return nil }
        self.host = String(host)
        self.port = port
    }

    /// The first `nameserver` of a resolv.conf text (resolv.conf(5)), or nil.
    public static func firstNameserver(inResolvConf text: String) -> DNSServerAddress? {
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields[0] == "nameserver" else { continue }
            // A scoped IPv6 address (fe80::1%eth0) cannot be asked through this client; skip it.
            if let address = DNSServerAddress(String(fields[1])) { return address }
        }
        return nil
    }

    /// The resolver of `/etc/resolv.conf`, or 127.0.0.1:53 when it names none.
    public static var system: DNSServerAddress {
        let text = (try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8)) ?? ""
        return firstNameserver(inResolvConf: text) ?? DNSServerAddress("127.0.0.1")!
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func family(of host: String) -> Int32? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return AF_INET }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return AF_INET6 }
        return nil
    }

    /// Calls `body` with the socket address.
    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        if Self.family(of: host) == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, host, &address.sin_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
