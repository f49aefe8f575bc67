import { ErrorConstructor, ObjectDefineProperty, blank } from './intrinsics.js';

/**
 * Error.prepareStackTrace is locked to undefined before any script runs. QuickJS-ng keeps the
 * function a script assigns there in a slot of its own and hands it the frames of every error as
 * CallSite objects, whose getFunction() returns the function of each frame, the prelude's and the
 * host's included. With the property redefined as a frozen data property, the engine's slot stays
 * empty for good: stacks are strings, and no CallSite is ever made.
 *
 * Error.captureStackTrace (a string stack on any object) and Error.stackTraceLimit (how many
 * frames a stack string holds) stay as they are: with no CallSite, neither reaches a function.
 */
export function lockStackTraces(): void {
  const locked = blank<PropertyDescriptor>();
  locked.value = undefined;
  locked.writable = false;
  locked.configurable = false;
  locked.enumerable = false;
  ObjectDefineProperty(ErrorConstructor, 'prepareStackTrace', locked);
}
