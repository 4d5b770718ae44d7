/** A provider cannot admit the task (a required server, an activation that does not fit): exit 2. */
export class AdmissionFailure extends Error {
  override readonly name = "AdmissionFailure";
}
