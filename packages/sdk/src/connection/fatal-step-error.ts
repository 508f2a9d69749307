import { ErrorCode, SdkError } from "../errors.js";
import { StepSource, StepStatus, type Step } from "../step.js";

/**
 * §16: a SYSTEM error step with HTTP 400/401/403 ends the turn with a typed error (after the
 * step is yielded): 401/403 → `PermissionDenied`, 400 → `InvalidArgument`. Other codes are
 * reported by the step alone and the turn goes on.
 */
export function fatalStepError(step: Step): SdkError | undefined {
  if (step.source !== StepSource.System || step.status !== StepStatus.Error) return undefined;
  const details = { httpCode: step.httpCode, stepId: step.id };
  const text = step.error || `HTTP ${step.httpCode}`;
  if (step.httpCode === 401 || step.httpCode === 403) {
    return new SdkError(
      ErrorCode.PermissionDenied,
      `the model API refused the credentials (HTTP ${step.httpCode}): ${text}; check the API key`,
      { details },
    );
  }
  if (step.httpCode === 400)
    return new SdkError(ErrorCode.InvalidArgument, `the model API rejected the request (HTTP 400): ${text}`, {
      details,
    });
  return undefined;
}
