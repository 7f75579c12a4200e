// libFuzzer entry for the CBOR decoder. Built by scripts/fuzz together with Sources/CBOR/*.swift into one module;
// not part of the SwiftPM package.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. Decoding never crashes, whatever the bytes, under the default limits and under tight ones.
// 2. What the decoder accepts is canonical: an independent encoder here (shortest heads, definite lengths, the map
//    entries in the order decoded) writes a float-free value back to exactly the input bytes. (A float is taken in
//    whatever width it came, so a value holding one is only re-decoded.)
// 3. Every accepted map has its keys in strictly increasing bytewise order of their encodings (so none twice).
// 4. decodePrefix of the input with bytes after it gives the same value and ends where the input ends; decode of
//    the same refuses the extra bytes as trailing.
// 5. Every proper prefix of an accepted input is refused as truncated.
// 6. Tight limits only refuse: what decodes under them decodes to the same value under the defaults.

#if canImport(Glibc)
    import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("property violated: \(message())\n", stderr)
        abort()
    }
}

/// The shortest head of `major` with `argument`.
private func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
    let type = major << 5
    switch argument {
    case 0..<24: return [type | UInt8(argument)]
    case 24...0xff: return [type | 24, UInt8(argument)]
    case 0x100...0xffff: return [type | 25] + bigEndian(argument, 2)
    case 0x1_0000...0xffff_ffff: return [type | 26] + bigEndian(argument, 4)
    default: return [type | 27] + bigEndian(argument, 8)
    }
}

private func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
    (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

/// The canonical encoding of a float-free value; nil when the value holds a float.
private func encode(_ value: CBORValue) -> [UInt8]? {
    switch value {
    case .unsigned(let n): return head(0, n)
    case .negative(let n): return head(1, n)
    case .bytes(let bytes): return head(2, UInt64(bytes.count)) + bytes
    case .text(let text): return head(3, UInt64(text.utf8.count)) + Array(text.utf8)
    case .array(let elements):
        var out = head(4, UInt64(elements.count))
        for element in elements {
            guard let encoded = encode(element) else { return nil }
            out += encoded
        }
        return out
    case .map(let entries):
        var out = head(5, UInt64(entries.count))
        var previous: [UInt8]?
        for entry in entries {
            guard let key = encode(entry.key), let value = encode(entry.value) else { return nil }
            if let previous { require(previous.lexicographicallyPrecedes(key), "map keys not increasing") }
            previous = key
            out += key + value
        }
        return out
    case .tagged(let tag, let content):
        guard let encoded = encode(content) else { return nil }
        return head(6, tag) + encoded
    case .boolean(let flag): return [flag ? 0xf5 : 0xf4]
    case .null: return [0xf6]
    case .undefined: return [0xf7]
    case .simple(let number): return number < 24 ? [0xe0 | number] : [0xf8, number]
    case .float: return nil
    }
}

/// Equality that holds NaN equal to NaN (the same input decoded twice).
private func same(_ a: CBORValue, _ b: CBORValue) -> Bool {
    switch (a, b) {
    case (.float(let x), .float(let y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.map(let x), .map(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { same($0.key, $1.key) && same($0.value, $1.value) }
    case (.tagged(let m, let x), .tagged(let n, let y)): return m == n && same(x, y)
    default: return a == b
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let decoder = CBORDecoder()
    let tight = CBORDecoder(limits: CBORLimits(maximumBytes: 512, maximumDepth: 3, maximumItems: 16))
    let tightValue = try? tight.decode(input)
    guard let value = try? decoder.decode(input) else {
        require(tightValue == nil, "tight limits accepted what the defaults refuse")
        return 0
    }
    if let tightValue { require(same(tightValue, value), "tight limits decoded another value") }
    if let encoded = encode(value) { require(encoded == input, "accepted a non-canonical encoding") }
    do {
        let (again, end) = try decoder.decodePrefix(input + [0x00, 0xff], from: 0)
        require(same(again, value) && end == size, "decodePrefix differs: end \(end) of \(size)")
    } catch {
        require(false, "decodePrefix refused an accepted input: \(error)")
    }
    do {
        _ = try decoder.decode(input + [0x00])
        require(false, "a trailing byte was accepted")
    } catch {
        require(error == .trailingBytes(offset: size), "trailing byte refused as \(error)")
    }
    if size <= 256 {
        for length in 0..<size {
            do {
                _ = try decoder.decode(Array(input[0..<length]))
                require(false, "a prefix of \(length) bytes was accepted")
            } catch {
                if case .truncated = error {} else { require(false, "prefix of \(length) refused as \(error)") }
            }
        }
    }
    return 0
}
