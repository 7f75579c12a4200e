// libFuzzer entry for the outbound URL parser and address policy. Built by scripts/fuzz together with
// Sources/Fetch/{FetchURL,FetchError}.swift into one module, over the pure files of OutboundSocket
// (RemoteAddress, AddressPolicy, SocketError) built as a module of their own; not part of the SwiftPM package.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. Parsing never crashes, whatever the bytes, as a URL, as `http://` + input, as an address
//    literal, and as a base URL plus a `Location` reference (split at the first LF).
// 2. Every accepted URL serializes to a request target and Host header of visible ASCII only (no
//    CR, LF, space, control or non-ASCII byte), a target starting with `/`, a port in 1...65535,
//    and (when percent-encoding kept it within the 2048-byte limit) parses back from its description
//    to the same URL.
// 3. Address literals agree with the C library: IPv4 spellings with inet_aton (decimal, octal, hex,
//    one to four parts; WHATWG's trailing dot and empty `0x` part aside), IPv6 with inet_pton. A host
//    kept as a DNS name is one inet_aton refuses, so getaddrinfo cannot read it as a number either.
// 4. Against a table of non-global ranges written here independently (IANA special-purpose
//    registries, and IPv4 embedded in mapped, compatible, NAT64 and 6to4 IPv6): with private
//    addresses off the policy admits only global addresses; with them on it still refuses link-local
//    (cloud metadata), unspecified, multicast and broadcast. Checked for parsed literals and for raw
//    4- and 16-byte addresses taken from the input.

import OutboundSocket

#if canImport(Glibc)
    import Glibc
#endif

/// An address prefix in the 16-byte IPv6 form (IPv4 prefixes as IPv4-mapped, length + 96).
private struct Prefix {
    let bytes: [UInt8]
    let length: Int

    init(v4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, _ length: Int) {
        bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d]
        self.length = 96 + length
    }

    init(v6 groups: [UInt16], _ length: Int) {
        var padded = groups + Array(repeating: 0, count: 8 - groups.count)
        padded = Array(padded.prefix(8))
        bytes = padded.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
        self.length = length
    }

    func contains(_ address: [UInt8]) -> Bool {
        var bit = 0
        while bit < length {
            let byte = bit / 8
            let remaining = length - bit
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            if address[byte] & mask != bytes[byte] & mask { return false }
            bit += 8
        }
        return true
    }
}

/// Not globally reachable (IANA IPv4/IPv6 special-purpose registries, as far as the policy covers them).
private let nonGlobal: [Prefix] = [
    Prefix(v4: 0, 0, 0, 0, 8), Prefix(v4: 10, 0, 0, 0, 8), Prefix(v4: 100, 64, 0, 0, 10),
    Prefix(v4: 127, 0, 0, 0, 8), Prefix(v4: 169, 254, 0, 0, 16), Prefix(v4: 172, 16, 0, 0, 12),
    Prefix(v4: 192, 0, 0, 0, 24), Prefix(v4: 192, 0, 2, 0, 24), Prefix(v4: 192, 168, 0, 0, 16),
    Prefix(v4: 198, 18, 0, 0, 15), Prefix(v4: 198, 51, 100, 0, 24), Prefix(v4: 203, 0, 113, 0, 24),
    Prefix(v4: 224, 0, 0, 0, 4), Prefix(v4: 240, 0, 0, 0, 4),
    Prefix(v6: [], 128), Prefix(v6: [0, 0, 0, 0, 0, 0, 0, 1], 128), Prefix(v6: [0xfc00], 7),
    Prefix(v6: [0xfe80], 10), Prefix(v6: [0xfec0], 10), Prefix(v6: [0xff00], 8),
    Prefix(v6: [0x2001, 0x0db8], 32), Prefix(v6: [0x0100], 64), Prefix(v6: [0x0064, 0xff9b, 0x0001], 48),
]
/// Refused even when private addresses are allowed: link-local and other cloud metadata addresses
/// (Alibaba 100.100.100.200, AWS fd00:ec2::254), unspecified, multicast, broadcast.
private let alwaysRefused: [Prefix] = [
    Prefix(v4: 169, 254, 0, 0, 16), Prefix(v4: 100, 100, 100, 200, 32), Prefix(v4: 0, 0, 0, 0, 8),
    Prefix(v4: 224, 0, 0, 0, 4), Prefix(v4: 255, 255, 255, 255, 32),
    Prefix(v6: [], 128), Prefix(v6: [0xfe80], 10), Prefix(v6: [0xff00], 8),
    Prefix(v6: [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254], 128),
]
private let globalUnicast = Prefix(v6: [0x2000], 3)

/// The 16-byte form the tables use: IPv4 as mapped, IPv6 with an embedded IPv4 address replaced by it.
private func normalized(_ address: RemoteAddress) -> [UInt8] {
    func mapped(_ b: ArraySlice<UInt8>) -> [UInt8] { [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] + b }
    switch address {
    case .v4(let value):
        return mapped([
            UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff),
        ])
    case .v6(let b):
        if Prefix(v6: [0, 0, 0, 0, 0, 0xffff], 96).contains(b) { return b }
        if Prefix(v6: [], 96).contains(b), !Prefix(v6: [], 127).contains(b) { return mapped(b[12...]) }
        if Prefix(v6: [0x0064, 0xff9b], 96).contains(b) { return mapped(b[12...]) }
        if Prefix(v6: [0x2002], 16).contains(b) { return mapped(b[2..<6]) }
        return b
    }
}

private func isGlobal(_ address: RemoteAddress) -> Bool {
    let b = normalized(address)
    if nonGlobal.contains(where: { $0.contains(b) }) { return false }
    if Prefix(v4: 0, 0, 0, 0, 0).contains(b) { return true }
    return globalUnicast.contains(b)
}

private func isAlwaysRefused(_ address: RemoteAddress) -> Bool {
    let b = normalized(address)
    return alwaysRefused.contains { $0.contains(b) }
}

/// Like `precondition`, but prints the message in optimized builds too, then traps for libFuzzer.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

private func fail(_ message: String) -> Never {
    fputs("property violated: \(message)\n", stderr)
    abort()
}

private let strictPolicy = AddressPolicy()
private let privatePolicy = AddressPolicy(allowPrivate: true)

private func checkPolicy(_ address: RemoteAddress, host: String) {
    if strictPolicy.allows(address, host: host) {
        require(isGlobal(address), "policy admits a non-global address with private off: \(address)")
    }
    if privatePolicy.allows(address, host: host) {
        require(!isAlwaysRefused(address), "policy admits a link-local/unspecified/multicast address: \(address)")
    }
}

/// True when every byte is visible ASCII (0x21...0x7e).
private func isVisibleASCII(_ text: String) -> Bool {
    text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
}

private func checkURL(_ url: FetchURL) {
    require(url.scheme == "http" || url.scheme == "https", "scheme")
    require((1...65535).contains(url.port), "port out of range")
    require(url.target.hasPrefix("/"), "target does not start with /")
    require(isVisibleASCII(url.target), "target has a byte that breaks the request line")
    require(isVisibleASCII(url.hostHeader), "Host header has a byte that breaks the header")
    require(!url.target.contains("#"), "fragment sent")
    // Percent-encoding can take a URL past the parser's 2048-byte limit; every shorter one parses back.
    if url.description.utf8.count <= 2048 {
        let again: FetchURL
        do {
            again = try FetchURL(parsing: url.description)
        } catch {
            fail("description does not parse back: \(url.description)")
        }
        require(again == url, "description parses to another URL: \(url.description)")
    }
    switch url.host {
    case .name(let name):
        require(!name.isEmpty && name.utf8.count <= 253, "name length")
        require(!name.hasPrefix(".") && !name.hasSuffix(".") && !name.contains(".."), "empty label")
        require(
            name.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d || $0 == 0x2e || $0 == 0x5f
            },
            "name has a character outside a-z 0-9 - _ .")
        var address = in_addr()
        require(inet_aton(name, &address) == 0, "host kept as a name that inet_aton reads as an address: \(name)")
        require(RemoteAddress(literal: name) == nil, "host kept as a name that is an address literal: \(name)")
    case .address(let address):
        checkPolicy(address, host: url.hostText)
    }
}

/// The IPv4 value inet_aton gives for `text` after WHATWG's two extensions (trailing dot, empty hex).
private func libcIPv4(_ text: String) -> UInt32? {
    var parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    if parts.count > 1 && parts.last == "" { parts.removeLast() }
    parts = parts.map { $0 == "0x" || $0 == "0X" ? "0" : $0 }
    var address = in_addr()
    guard inet_aton(parts.joined(separator: "."), &address) != 0 else { return nil }
    return UInt32(bigEndian: address.s_addr)
}

private func libcIPv6(_ text: String) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: 16)
    guard inet_pton(AF_INET6, text, &bytes) == 1 else { return nil }
    return bytes
}

private func checkLiteral(_ text: String) {
    let parsed = RemoteAddress(literal: text)
    if let parsed {
        require(RemoteAddress(literal: parsed.description) == parsed, "literal does not round-trip: \(text)")
        checkPolicy(parsed, host: text)
        checkPolicy(parsed, host: parsed.description)
    }
    // The C library reads ASCII without whitespace or NUL the same way; compare only those.
    guard isVisibleASCII(text) else { return }
    if text.contains(":") {
        let expected = libcIPv6(text).map(RemoteAddress.v6)
        require(parsed == expected, "IPv6 literal disagrees with inet_pton: \(text)")
    } else {
        let expected = libcIPv4(text).map(RemoteAddress.v4)
        require(parsed == expected, "IPv4 literal disagrees with inet_aton: \(text)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFetchURL(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)

    checkLiteral(text)
    if let url = try? FetchURL(parsing: text) { checkURL(url) }
    if let url = try? FetchURL(parsing: "http://" + text) { checkURL(url) }
    if let newline = text.firstIndex(of: "\n") {
        let base = String(text[..<newline])
        let reference = String(text[text.index(after: newline)...])
        checkLiteral(base)
        if let url = try? FetchURL(parsing: base), let next = try? url.resolving(reference) { checkURL(next) }
    }

    // Raw addresses straight from the input bytes, whatever text would spell them.
    if size >= 4 {
        let value = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        checkPolicy(.v4(value), host: "")
    }
    if size >= 16 { checkPolicy(.v6(Array(bytes[0..<16])), host: "") }
    return 0
}
