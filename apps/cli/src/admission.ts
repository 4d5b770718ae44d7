import { CliErrorCode } from "./error-codes.js";

/**
 * A provider cannot admit the task (a required server, an activation that does not fit): exit 2.
 * `code` is stable and printed with the message.
 */
export class AdmissionFailure extends Error {
  override readonly name = "AdmissionFailure";
  readonly code: string;

  constructor(message: string, code: string = CliErrorCode.ADMISSION_FAILED) {
    super(message);
    this.code = code;
  }
}
