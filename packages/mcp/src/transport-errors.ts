/** A server message exceeded `max_message_bytes`; the connection is closed. */
export class MessageTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(
      `the server sent a message larger than ${limitBytes} bytes (max_message_bytes); the connection was closed`,
    );
    this.name = "MessageTooLarge";
  }
}

/** The server kept writing stdout lines that are not JSON-RPC messages; the connection is closed. */
export class NotJsonRpcOutput extends Error {
  constructor(readonly allowance: number) {
    super(
      `the server wrote more than ${allowance} stdout lines that are not JSON-RPC messages; the connection was closed`,
    );
    this.name = "NotJsonRpcOutput";
  }
}

/** A redirect answer, which Pablo never follows. */
export class RedirectRefused extends Error {
  constructor(readonly status: number) {
    super(`the server answered with a redirect (HTTP ${status}); Pablo does not follow redirects`);
    this.name = "RedirectRefused";
  }
}
