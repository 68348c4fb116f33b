import PermitInput
import Testing

/// Text from policies and scenarios reaches HTML reports and JUnit's XML: it must not open a
/// tag or an attribute, and must not make the file unreadable.
@Suite struct MarkupTextTests {
    @Test func markupCharactersBecomeReferences() {
        #expect(
            MarkupText.escaped(#"<script>alert("x" & 'y')</script>"#)
                == "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;")
    }

    /// A control character in a policy's reason would make a JUnit report unreadable: XML 1.0
    /// cannot hold it, so it is dropped; tab, newline and carriage return stay.
    @Test func charactersXMLCannotHoldAreDropped() {
        #expect(MarkupText.escaped("a\u{1B}[31mb\u{0}c\u{FFFE}d\u{FFFF}") == "a[31mbcd")
        #expect(MarkupText.escaped("line\tone\r\nline two") == "line\tone\r\nline two")
    }

    @Test func otherTextIsKept() {
        #expect(MarkupText.escaped("Benachrichtigungen – 通知 🔔") == "Benachrichtigungen – 通知 🔔")
    }
}
