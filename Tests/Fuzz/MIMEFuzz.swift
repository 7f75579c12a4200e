// libFuzzer entry for the MIME parser (MIMEParser.parse and the byte-fed header parser). Built by scripts/fuzz
// together with Sources/MIME/*.swift into one module; not part of the SwiftPM package.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. Parsing never crashes, whatever the bytes; with tight limits it throws only MIMEError.
// 2. The preview is at most 256 characters; the size is the input's length.
// 3. The header parser reads the same fields whether the input comes whole or one byte at a time.
// 4. The strict header reader and the originators never crash; what HeaderSection accepts holds no NUL, bare CR or
//    bare LF in its values.
// 5. An address list the strict parser reads, written again by the composer, reads back to the same mailboxes (so
//    the sender check, the composer and the web inbox agree on what a field names).

#if canImport(Glibc)
    import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("property violated: \(message())\n", stderr)
        abort()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMIME(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = MIMELimits(maximumHeaderBytes: 4096, maximumHeaderCount: 64, maximumDepth: 4, maximumParts: 64)
    if let message = try? MIMEParser.parse(input, limits: limits) {
        require(message.preview.count <= 256, "preview of \(message.preview.count) characters")
        require(message.size == size, "size \(message.size) for \(size) bytes")
    }
    var whole = MIMEHeaderParser(limits: limits)
    var single = MIMEHeaderParser(limits: limits)
    let wholeResult = Result { () throws(MIMEError) in try whole.feed(input) }
    var singleResult: Result<Int, MIMEError> = .success(0)
    var used = 0
    for byte in input where !single.isComplete {
        do {
            used += try single.feed(CollectionOfOne(byte))
        } catch {
            singleResult = .failure(error)
            break
        }
    }
    if case .success = singleResult { singleResult = .success(used) }
    require(wholeResult == singleResult, "whole \(wholeResult) vs byte by byte \(singleResult)")
    require(whole.fields.map(\.name) == single.fields.map(\.name), "fields differ")
    if let header = try? HeaderSection(message: input) {
        for field in header.fields {
            require(!field.value.utf8.contains(0) && !field.value.utf8.contains(10), "a NUL or LF kept in \(field.name)")
            require(!field.value.utf8.contains(13), "a CR kept in \(field.name)")
        }
        _ = try? Originators(header: header)
    }
    if let text = String(validating: input, as: UTF8.self), let list = try? AddressListParser.addressList(text) {
        let mailboxes = list.flatMap(\.mailboxes)
        let written = mailboxes.compactMap { try? MIMEComposer.address($0, field: "To") }
        if written.count == mailboxes.count, !written.isEmpty {
            let again = try? AddressListParser.mailboxList(written.joined(separator: ", "))
            require(again?.map(\.email) == mailboxes.map(\.email), "\(mailboxes) written as \(written) reads \(String(describing: again))")
        }
    }
    return 0
}
