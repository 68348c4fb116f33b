import Foundation
import PermitCore
import PermitInput

/// The compact form of a decision log for `permit fit`: one JSON line per install (or several,
/// each going on where the last stopped), holding only what the fit reads:
///
///     {"install":"a1","locale":"en","os":"17.5","policy":"polite","user":"u1",
///      "records":[[1767600000,"app_launch",null,null,"not_determined","not_determined","soft_prompt",0],
///                 [31,"soft_prompt_answered","accept",null,"not_determined","authorized","none",2]]}
///
/// Each record is `[seconds, event, answer, feature, status_before, status_after, action, flags]`:
/// `seconds` the Unix time of a line's first record and, for the next ones, the seconds since
/// the record before; `answer` the event's `answer`, or `"true"`/`"false"` for its `granted`;
/// `flags` 1 when the decision's presentation is inline, plus 2 when the dialog was shown;
/// `policy` the policy's name (`null` when the records carry none).
///
/// Why: a full record carries the decision's trace, params, warnings and history, which an
/// analytics store keeps but the fit never reads (a popular app logs ~10 GB of them a month); the
/// compact form keeps the ten fields the fit uses, and an install's ids and platform once, so
/// a month of it is about a sixth of the size (docs/reference/model.md#compact-records) and a
/// warehouse query (group by install, order by time) writes it directly. The fit reads either
/// form, even mixed in one file, and gives the same figures from both.
public enum CompactRecords {
    /// Reads one compact line: its records, in order, as the fit reads a full record.
    static func parse(line text: String, file: String, line: Int) throws(FitInputError) -> [FitRecord] {
        func fail(_ message: String) -> FitInputError { FitInputError(file: file, line: line, message: message) }
        let parsed: Line
        do {
            parsed = try JSONDecoder().decode(Line.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw fail(Self.message(error))
        } catch {
            throw fail("not JSON")
        }
        guard !parsed.install.isEmpty else { throw fail("\"install\" is empty") }
        guard (try? OSVersion(parsing: parsed.os)) != nil else {
            throw fail("\"os\" is \"\(TerminalText.inline(parsed.os))\", not an iOS version like 17.5")
        }
        guard UserModel.isLocale(parsed.locale) else {
            throw fail("\"locale\" is \"\(TerminalText.inline(parsed.locale))\", not a BCP 47 locale like en, zh-Hans or pt-BR")
        }
        var records: [FitRecord] = []
        var time: Int64 = 0
        for (index, entry) in parsed.records.enumerated() {
            let place = "records[\(index)]"
            guard index == 0 || entry.seconds >= 0 else {
                throw fail("\"\(place)\" comes \(-entry.seconds) seconds before the record before it; sort each install's records by time")
            }
            time = index == 0 ? entry.seconds : time + entry.seconds
            for (key, value) in [("status_before", entry.statusBefore), ("status_after", entry.statusAfter)]
            where PermissionStatus(rawValue: value) == nil {
                throw fail("\"\(place)\"'s \(key) is \"\(TerminalText.inline(value))\", not a status")
            }
            guard (0...3).contains(entry.flags) else { throw fail("\"\(place)\"'s flags are \(entry.flags), not 0 to 3") }
            records.append(
                FitRecord(
                    install: parsed.install, user: parsed.user, os: parsed.os, locale: parsed.locale, time: time, event: entry.event,
                    answer: entry.answer, feature: entry.feature, statusBefore: entry.statusBefore, statusAfter: entry.statusAfter,
                    action: entry.action, inline: entry.flags & 1 != 0, dialogShown: entry.flags & 2 != 0, policy: parsed.policy))
        }
        return records
    }

    /// Whether a line is in the compact form (it has `records`, not a full line's `record`);
    /// a cheap look at its bytes, before it is decoded.
    static func isCompact(_ text: String) -> Bool {
        text.contains("\"records\"")
    }

    /// The text that tells a compact record from a repeat of it: the fields it keeps.
    static func identity(_ record: FitRecord) -> String {
        [
            "\(record.time)", record.event, record.answer ?? "", record.feature ?? "", record.statusBefore, record.statusAfter,
            record.action, record.inline ? "i" : "", record.dialogShown ? "d" : "",
        ].joined(separator: "\u{1}")
    }

    /// The compact form of record files (`permit fit --compact`): every install's records,
    /// one line per install in the order installs first appear. Holds the compact records of
    /// every install until the end (an install's last record can come last in the log).
    public static func convert(_ inputs: [(url: URL, name: String)]) throws(FitInputError) -> (data: Data, installs: Int, records: Int) {
        var order: [String] = []
        var installs: [String: (first: FitRecord, records: [FitRecord])] = [:]
        var count = 0
        for (url, name) in inputs {
            try RecordFit.lines(of: url, name: name) { text, number throws(FitInputError) in
                for record in try RecordFit.records(in: text, file: name, line: number) {
                    if installs[record.install] == nil {
                        order.append(record.install)
                        installs[record.install] = (record, [])
                    }
                    installs[record.install]!.records.append(record)
                    count += 1
                }
            }
        }
        var out = Data()
        for install in order {
            let (first, records) = installs[install]!
            out.append(Data(line(first: first, records: records).utf8))
            out.append(0x0A)
        }
        return (out, order.count, count)
    }

    /// One install's line.
    static func line(first: FitRecord, records: [FitRecord]) -> String {
        func string(_ text: String?) -> String { text.map(Self.json) ?? "null" }
        var previous: Int64?
        let entries = records.map { record in
            defer { previous = record.time }
            let seconds = previous.map { record.time - $0 } ?? record.time
            let flags = (record.inline ? 1 : 0) + (record.dialogShown ? 2 : 0)
            return "[\(seconds),\(json(record.event)),\(string(record.answer)),\(string(record.feature)),"
                + "\(json(record.statusBefore)),\(json(record.statusAfter)),\(json(record.action)),\(flags)]"
        }
        return "{\"install\":\(json(first.install)),\"locale\":\(json(first.locale)),\"os\":\(json(first.os)),"
            + "\"policy\":\(string(first.policy)),\"records\":[\(entries.joined(separator: ","))],\"user\":\(string(first.user))}"
    }

    /// A string as JSON writes it.
    private static func json(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A decoding error as the field it is about.
    private static func message(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            (context.codingPath + (last.map { [$0] } ?? [])).map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing \"\(path(context, key))\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not a JSON object" }
            return "\"\(path(context))\" is not valid: records are [seconds, event, answer, feature, status_before, "
                + "status_after, action, flags]"
        @unknown default:
            return "not a compact line"
        }
    }

    private struct Line: Decodable {
        var install: String
        var user: String?
        var os: String
        var locale: String
        var policy: String?
        var records: [Entry]
    }

    /// `[seconds, event, answer, feature, status_before, status_after, action, flags]`.
    private struct Entry: Decodable {
        var seconds: Int64
        var event: String
        var answer: String?
        var feature: String?
        var statusBefore: String
        var statusAfter: String
        var action: String
        var flags: Int

        init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            seconds = try c.decode(Int64.self)
            event = try c.decode(String.self)
            answer = try c.decodeNil() ? nil : try c.decode(String.self)
            feature = try c.decodeNil() ? nil : try c.decode(String.self)
            statusBefore = try c.decode(String.self)
            statusAfter = try c.decode(String.self)
            action = try c.decode(String.self)
            flags = try c.decode(Int.self)
            guard c.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "more than eight fields")
            }
        }
    }
}
